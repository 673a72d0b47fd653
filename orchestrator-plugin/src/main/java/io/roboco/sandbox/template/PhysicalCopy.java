package io.roboco.sandbox.template;

import io.roboco.sandbox.engine.PhysicalCopies;
import java.util.Objects;
import java.util.Optional;

/**
 * What is known about a template's physical copy (its stopped server's data directory, beside its dump): the image and
 * the major that wrote it (a copy starts only there), the admin, role and database inside it (names, never a secret) and
 * the archive's size in bytes.
 */
public record PhysicalCopy(String image, String major, String adminUser, String user, String database, long sizeBytes) {
    public PhysicalCopy {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(major, "major");
        Objects.requireNonNull(adminUser, "adminUser");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(database, "database");
    }

    /** The copy of {@code origin} written on {@code image}, of {@code sizeBytes} bytes. */
    public static PhysicalCopy of(String image, PhysicalCopies.Origin origin, long sizeBytes) {
        return new PhysicalCopy(image, origin.major(), origin.adminUser(), origin.user(), origin.database(), sizeBytes);
    }

    public PhysicalCopies.Origin origin() {
        return new PhysicalCopies.Origin(major, adminUser, user, database);
    }

    public PhysicalCopy withSize(long bytes) {
        return new PhysicalCopy(image, major, adminUser, user, database, bytes);
    }

    /**
     * Why this copy cannot start a sandbox on {@code targetImage} running {@code targetMajor} (empty: it can): a data
     * directory is read only by the major that wrote it, and only an image known to be the same is trusted to be that
     * major with the same build (extensions, locales, compile options). An unknown target major does not refuse a copy
     * made on the same image.
     */
    public Optional<String> mismatch(String targetImage, String targetMajor) {
        boolean sameMajor = targetMajor == null || targetMajor.isEmpty() || targetMajor.equals(major);
        if (image.equals(targetImage) && sameMajor) {
            return Optional.empty();
        }
        return Optional.of("its physical copy was written by PostgreSQL " + major + " on image " + image
                + ", and this sandbox runs "
                + (targetMajor == null || targetMajor.isEmpty() ? "" : "PostgreSQL " + targetMajor + " on ")
                + "image " + targetImage + " (a data directory starts only on the major and image that wrote it)");
    }
}
