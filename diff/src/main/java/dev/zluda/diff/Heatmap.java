package dev.zluda.diff;

import java.util.Base64;

/**
 * Where the elements of a buffer differ: a grid of cells in row-major element order, each covering
 * {@link #elementsPerCell()} consecutive elements (1 up to 65,536 elements, more for larger
 * buffers). The diff computes it without java.desktop; only {@link #png()} needs it. A cell holds 0 when its elements are equal, else the largest magnitude of their
 * differences scaled to 1..255. Rendered as a PNG: equal cells dark green, differing ones from
 * yellow (tiny relative difference) to red (large, NaN, or sign), cells past the end black.
 */
public final class Heatmap {
    /** Most cells in a heatmap. */
    public static final int MAX_CELLS = 65_536;

    private final long elements;
    private final long perCell;
    private final int width;
    private final int height;
    private final byte[] cells;

    private Heatmap(long elements, long perCell, int width, int height, byte[] cells) {
        this.elements = elements;
        this.perCell = perCell;
        this.width = width;
        this.height = height;
        this.cells = cells;
    }

    /** Elements covered. */
    public long elements() {
        return elements;
    }

    /** Consecutive elements per cell. */
    public long elementsPerCell() {
        return perCell;
    }

    /** Cells per row. */
    public int width() {
        return width;
    }

    /** Rows. */
    public int height() {
        return height;
    }

    /** Cell value (0 equal, 1..255 magnitude) at a cell index; -1 past the end. */
    public int cell(int index) {
        long first = index * perCell;
        return first >= elements ? -1 : cells[index] & 0xFF;
    }

    /** Number of cells with a difference. */
    public int differingCells() {
        int n = 0;
        for (byte c : cells) if (c != 0) n++;
        return n;
    }

    /** A scale that makes the image between about 128 and 512 pixels wide. */
    public int defaultScale() {
        int s = 512 / Math.max(width, height);
        return Math.max(1, Math.min(16, s));
    }

    /** The colour (0xRRGGBB) of a cell value: equal dark green, differing yellow (small) to red (large), -1 (past the end) near black. */
    public static int color(int v) {
        if (v < 0) return 0x111111;
        if (v == 0) return 0x24452c;
        double t = (v - 1) / 254.0;
        int r = (int) Math.round(255 - 35 * t), g = (int) Math.round(225 * (1 - t)), b = 0;
        return (r << 16) | (g << 8) | b;
    }

    /** The image as PNG bytes ({@link #defaultScale()} pixels per cell). */
    public byte[] png() {
        return HeatmapPng.png(this, defaultScale());
    }

    /** {@code data:image/png;base64,...} for an HTML {@code <img>}. */
    public String dataUri() {
        return "data:image/png;base64," + Base64.getEncoder().encodeToString(png());
    }

    /** Collects differences element by element. */
    public static final class Builder {
        private final long elements;
        private final long perCell;
        private final int width;
        private final int height;
        private final byte[] cells;

        /** A heatmap for a buffer of {@code elements} elements. */
        public Builder(long elements) {
            this.elements = Math.max(1, elements);
            this.perCell = Math.max(1, (this.elements + MAX_CELLS - 1) / MAX_CELLS);
            int n = (int) ((this.elements + perCell - 1) / perCell);
            this.width = (int) Math.ceil(Math.sqrt(n));
            this.height = (n + width - 1) / width;
            this.cells = new byte[width * height];
        }

        /** Element {@code index} differs with this magnitude in (0, 1]. */
        public void mark(long index, double magnitude) {
            int c = (int) (index / perCell);
            int v = 1 + (int) Math.round(Math.max(0, Math.min(1, magnitude)) * 254);
            if (v > (cells[c] & 0xFF)) cells[c] = (byte) v;
        }

        /** The heatmap. */
        public Heatmap build() {
            return new Heatmap(elements, perCell, width, height, cells);
        }
    }
}
