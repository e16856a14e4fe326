package dev.zluda.ptx.ir;

import dev.zluda.ptx.PtxType;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * An instruction's modifiers, typed ({@link Mod}), in source order — one per dotted word, the words of the family's
 * key included ({@code cvt.pack.sat.u8.s32.b32} has six). Immutable.
 */
public final class Modifiers implements Iterable<Mod> {
    private final List<Mod> list;
    private final List<PtxType> types;

    /** Modifiers in source order. */
    public Modifiers(List<Mod> list) {
        this.list = List.copyOf(list);
        List<PtxType> t = new ArrayList<>();
        for (Mod m : list) if (m instanceof Mod.Type ty) t.add(ty.type());
        this.types = List.copyOf(t);
    }

    /** Number of modifiers as written. */
    public int size() { return list.size(); }

    /** Number of different modifiers (a word written twice counts once). */
    public int distinctCount() { return new LinkedHashSet<>(list).size(); }

    /** The {@code i}-th modifier, or null past the end. */
    public Mod get(int i) { return i < list.size() ? list.get(i) : null; }

    /** All modifiers in order. */
    public List<Mod> list() { return list; }

    @Override public Iterator<Mod> iterator() { return list.iterator(); }

    /** Whether {@code m} is among them. */
    public boolean has(Mod m) { return list.contains(m); }

    /** Whether any of {@code ms} is among them. */
    public boolean hasAny(Mod... ms) {
        for (Mod m : ms) if (list.contains(m)) return true;
        return false;
    }

    /** Whether a modifier of this kind ({@code Mod.MmaKind.class}) is among them. */
    public boolean hasKind(Class<? extends Mod> kind) {
        for (Mod m : list) if (kind.isInstance(m)) return true;
        return false;
    }

    /** Whether every modifier is one of {@code allowed} (types included). */
    public boolean only(Collection<? extends Mod> allowed) {
        for (Mod m : list) if (!allowed.contains(m)) return false;
        return true;
    }

    /** The first modifier of this kind in source order, or null. */
    public <T extends Mod> T first(Class<T> kind) {
        for (Mod m : list) if (kind.isInstance(m)) return kind.cast(m);
        return null;
    }

    /** The last modifier of this kind in source order, or null. */
    public <T extends Mod> T last(Class<T> kind) {
        T out = null;
        for (Mod m : list) if (kind.isInstance(m)) out = kind.cast(m);
        return out;
    }

    /** Every modifier of this kind in source order. */
    public <T extends Mod> List<T> all(Class<T> kind) {
        List<T> out = new ArrayList<>();
        for (Mod m : list) if (kind.isInstance(m)) out.add(kind.cast(m));
        return out;
    }

    /** The type modifiers in source order ({@code cvt.rn.f32.s32} → f32, s32). */
    public List<PtxType> types() { return types; }

    /** The {@code k}-th type modifier, or null. */
    public PtxType type(int k) { return k < types.size() ? types.get(k) : null; }

    /** The last type modifier, or null. */
    public PtxType lastType() { return types.isEmpty() ? null : types.getLast(); }

    /** The vector width {@code .v2/.v4/.v8} (the first written), 1 without one. */
    public int vector() {
        Mod.Vector v = first(Mod.Vector.class);
        return v == null ? 1 : v.n();
    }

    /** The words as written, concatenated ({@code ".global.nc.v4.u32"}). */
    @Override public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Mod m : list) sb.append(m.text());
        return sb.toString();
    }
}
