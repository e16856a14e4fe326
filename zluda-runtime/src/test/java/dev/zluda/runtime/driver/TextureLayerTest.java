package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Texture and surface objects: descriptors kept, errors as documented (CUDA Driver API, cuTexObjectCreate / cuSurfObjectCreate). */
class TextureLayerTest extends DriverTestBase {
    private long array3d(long w, long h, int flags) {
        MemorySegment ad = mem(40), out = mem(8);
        ad.set(ValueLayout.JAVA_LONG, 0, w);
        ad.set(ValueLayout.JAVA_LONG, 8, h);
        ad.set(ValueLayout.JAVA_INT, 24, 0x20); // FLOAT
        ad.set(ValueLayout.JAVA_INT, 28, 4);
        ad.set(ValueLayout.JAVA_INT, 32, flags);
        assertEquals(0, d.cuArray3DCreate_v2(addr(out), addr(ad)));
        return i64(out);
    }

    private MemorySegment arrayResource(long arr) {
        MemorySegment rd = mem(TextureArea.RESOURCE_DESC_BYTES);
        rd.set(ValueLayout.JAVA_INT, 0, TextureArea.RES_ARRAY);
        rd.set(ValueLayout.JAVA_LONG, 8, arr);
        return rd;
    }

    @Test
    void texObjectKeepsItsDescriptors() {
        initWithContext();
        long arr = array3d(8, 4, 0);
        MemorySegment rd = arrayResource(arr), td = mem(TextureArea.TEXTURE_DESC_BYTES), obj = mem(8);
        td.set(ValueLayout.JAVA_INT, 0, 3);
        td.set(ValueLayout.JAVA_INT, 12, 1);
        td.set(ValueLayout.JAVA_INT, 16, 2);
        td.set(ValueLayout.JAVA_FLOAT, 40, 0.5f);
        assertEquals(0, d.cuTexObjectCreate(addr(obj), addr(rd), addr(td), 0));
        long h = i64(obj);
        assertNotEquals(0, h);
        MemorySegment rd2 = mem(TextureArea.RESOURCE_DESC_BYTES), td2 = mem(TextureArea.TEXTURE_DESC_BYTES);
        assertEquals(0, d.cuTexObjectGetResourceDesc(addr(rd2), h));
        assertEquals(0, d.cuTexObjectGetTextureDesc(addr(td2), h));
        assertArrayEquals(rd.toArray(ValueLayout.JAVA_BYTE), rd2.toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(td.toArray(ValueLayout.JAVA_BYTE), td2.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(CuResult.INVALID_VALUE, d.cuSurfObjectDestroy(h), "a texture object is no surface object");
        assertEquals(0, d.cuTexObjectDestroy(h));
        assertEquals(CuResult.INVALID_VALUE, d.cuTexObjectDestroy(h), "destroyed twice");
        assertEquals(CuResult.INVALID_VALUE, d.cuTexObjectGetTextureDesc(addr(td2), h));
    }

    @Test
    void errors() {
        initWithContext();
        long plain = array3d(8, 4, 0), ldst = array3d(8, 4, TextureArea.ARRAY_SURFACE_LDST);
        MemorySegment obj = mem(8), td = mem(TextureArea.TEXTURE_DESC_BYTES);
        assertEquals(CuResult.INVALID_VALUE, d.cuSurfObjectCreate(addr(obj), addr(arrayResource(plain))), "no SURFACE_LDST");
        assertEquals(0, d.cuSurfObjectCreate(addr(obj), addr(arrayResource(ldst))));
        assertEquals(0, d.cuSurfObjectDestroy(i64(obj)));
        assertEquals(CuResult.NOT_SUPPORTED, d.cuTexObjectCreate(addr(obj), addr(arrayResource(plain)), addr(td), addr(mem(64))), "resource views");
        assertEquals(CuResult.INVALID_VALUE, d.cuTexObjectCreate(addr(obj), addr(arrayResource(plain)), 0, 0));
        assertEquals(CuResult.INVALID_HANDLE, d.cuTexObjectCreate(addr(obj), addr(arrayResource(0x1234)), addr(td), 0));
        MemorySegment mip = mem(TextureArea.RESOURCE_DESC_BYTES);
        mip.set(ValueLayout.JAVA_INT, 0, TextureArea.RES_MIPMAPPED);
        assertEquals(CuResult.NOT_SUPPORTED, d.cuTexObjectCreate(addr(obj), addr(mip), addr(td), 0));
        // pitch2D: the pitch must be a multiple of 32 bytes and the rows inside an allocation
        long p = alloc(4096);
        MemorySegment rd = mem(TextureArea.RESOURCE_DESC_BYTES);
        rd.set(ValueLayout.JAVA_INT, 0, TextureArea.RES_PITCH2D);
        rd.set(ValueLayout.JAVA_LONG, 8, p);
        rd.set(ValueLayout.JAVA_INT, 16, 0x20);
        rd.set(ValueLayout.JAVA_INT, 20, 1);
        rd.set(ValueLayout.JAVA_LONG, 24, 8);
        rd.set(ValueLayout.JAVA_LONG, 32, 4);
        rd.set(ValueLayout.JAVA_LONG, 40, 40);
        assertEquals(CuResult.INVALID_VALUE, d.cuTexObjectCreate(addr(obj), addr(rd), addr(td), 0), "pitch 40");
        rd.set(ValueLayout.JAVA_LONG, 40, 64);
        assertEquals(0, d.cuTexObjectCreate(addr(obj), addr(rd), addr(td), 0));
        rd.set(ValueLayout.JAVA_LONG, 32, 1000);
        assertEquals(CuResult.INVALID_VALUE, d.cuTexObjectCreate(addr(obj), addr(rd), addr(td), 0), "rows past the allocation");
    }
}
