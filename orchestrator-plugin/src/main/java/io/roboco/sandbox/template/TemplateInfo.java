package io.roboco.sandbox.template;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What is known about a saved template, never its content: where it came from (project, sandbox), the Postgres major
 * and version it was dumped on, the dump's size in bytes, when it was saved, the schema digest of the source at that
 * moment ({@code SchemaDigest}, so a restore can be checked against it), the extensions its schema uses, and its
 * physical copy when one was made ({@link PhysicalCopy}; null: the dump only).
 */
public record TemplateInfo(
        String name,
        String project,
        String sandbox,
        String major,
        String postgresVersion,
        long sizeBytes,
        Instant created,
        String schemaDigest,
        List<String> extensions,
        PhysicalCopy physical) {
    public TemplateInfo {
        Objects.requireNonNull(name, "name");
        project = project == null ? "" : project;
        sandbox = sandbox == null ? "" : sandbox;
        major = major == null ? "" : major;
        postgresVersion = postgresVersion == null ? "" : postgresVersion;
        Objects.requireNonNull(created, "created");
        schemaDigest = schemaDigest == null ? "" : schemaDigest;
        extensions = extensions == null ? List.of() : List.copyOf(extensions);
    }

    /** A template of its dump only (no physical copy). */
    public TemplateInfo(
            String name,
            String project,
            String sandbox,
            String major,
            String postgresVersion,
            long sizeBytes,
            Instant created,
            String schemaDigest,
            List<String> extensions) {
        this(name, project, sandbox, major, postgresVersion, sizeBytes, created, schemaDigest, extensions, null);
    }

    public TemplateInfo withSize(long bytes) {
        return new TemplateInfo(
                name, project, sandbox, major, postgresVersion, bytes, created, schemaDigest, extensions, physical);
    }

    /** This template with {@code copy} as its physical copy (null: none). */
    public TemplateInfo withPhysical(PhysicalCopy copy) {
        return new TemplateInfo(
                name, project, sandbox, major, postgresVersion, sizeBytes, created, schemaDigest, extensions, copy);
    }

    /** Its physical copy, when it has one. */
    public Optional<PhysicalCopy> physicalCopy() {
        return Optional.ofNullable(physical);
    }

    /** The bytes it keeps in the store: its dump and its physical copy. */
    public long storedBytes() {
        return sizeBytes + (physical == null ? 0 : physical.sizeBytes());
    }

    /**
     * Why this template may not restore into a server of {@code targetMajor} (empty: it may): a dump restores into the
     * major it came from or a newer one, never an older one. An unknown major on either side is not refused here.
     */
    public Optional<String> refusalFor(String targetMajor, String where) {
        Integer from = number(major);
        Integer to = number(targetMajor);
        if (from == null || to == null || to >= from) {
            return Optional.empty();
        }
        return Optional.of(
                "template '" + name + "' was saved from PostgreSQL " + major + " and restores only into " + major
                        + " or newer; " + where + " runs PostgreSQL " + targetMajor
                        + " (a dump of a newer major does not restore on an older"
                        + " one): set the project's sandbox_versions to {\"postgres\":\"" + major
                        + "\"} or save the template from a "
                        + targetMajor + " sandbox");
    }

    private static Integer number(String major) {
        try {
            return major == null || major.isEmpty() ? null : Integer.valueOf(major);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
