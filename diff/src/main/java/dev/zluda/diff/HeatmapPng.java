package dev.zluda.diff;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Renders a {@link Heatmap} (kept apart so that computing one does not load java.desktop). */
final class HeatmapPng {
    private HeatmapPng() {}

    /** The image, each cell {@code scale}×{@code scale} pixels. */
    static BufferedImage image(Heatmap h, int scale) {
        BufferedImage img = new BufferedImage(h.width() * scale, h.height() * scale, BufferedImage.TYPE_INT_RGB);
        for (int i = 0; i < h.width() * h.height(); i++) {
            int rgb = Heatmap.color(h.cell(i));
            int x0 = (i % h.width()) * scale, y0 = (i / h.width()) * scale;
            for (int y = 0; y < scale; y++) for (int x = 0; x < scale; x++) img.setRGB(x0 + x, y0 + y, rgb);
        }
        return img;
    }

    static byte[] png(Heatmap h, int scale) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ImageIO.write(image(h, scale), "png", out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
