package io.roboco.sandbox.engine;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * A sandbox's whole data directory, copied out of a cleanly stopped server and into a new sandbox before its server
 * starts ({@link Engine#physicalCopies}): a template whose seeding time grows with the bytes copied, not with the
 * statements a dump replays. A copy is bound to the major and the image that wrote it; a dump ({@link Dumps}) stays the
 * portable form.
 *
 * <p>Both ends run in containers whose first process is the engine's own wrapper: {@link #supervised} (the server is a
 * child that may stop while the container stays, so its data directory can be read whole) and {@link #held} (the
 * server waits until a data directory has been written in).
 */
public interface PhysicalCopies {
    /**
     * What a copy carries besides its files: the major that wrote it, and the admin, login role and database inside it,
     * whose names and passwords a restore replaces with the new sandbox's. Names only, never a secret.
     */
    record Origin(String major, String adminUser, String user, String database) {
        public Origin {
            Objects.requireNonNull(major, "major");
            Objects.requireNonNull(adminUser, "adminUser");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(database, "database");
        }
    }

    /** {@code spec} with its server started as a child of the container's first process, which outlives it. */
    ContainerSpec supervised(ContainerSpec spec);

    /** {@code spec} with its server held back until {@link #restore} has written a data directory in. */
    ContainerSpec held(ContainerSpec spec);

    /**
     * {@link #held} whose first process copies the unpacked copy mounted read-only at {@code copyDir} (a directory holding
     * what {@link #capture} archived) into the data directory before it waits: {@link #restore} is then called with no
     * archive. A memory-speed copy inside the container instead of a stream through an exec.
     */
    ContainerSpec heldFrom(ContainerSpec spec, String copyDir);

    /**
     * Stops the server of a {@link #supervised} container cleanly and writes its data directory to {@code out} as one
     * archive; {@code source} carries the credentials the container runs with. The container's server does not run
     * afterwards.
     */
    Origin capture(ContainerExec exec, ProbeTarget source, OutputStream out) throws SeedException;

    /**
     * Writes {@code archive} ({@code length} bytes, from {@link #capture}) into the data directory of a {@link #held}
     * container, gives the origin's admin, role and database the names and passwords of {@code target}, then lets its
     * server start. Refuses, naming both, a copy of another major than the image's server. A null {@code archive}: the
     * container was started {@link #heldFrom} a copy, which its first process has copied in already.
     */
    void restore(ContainerExec exec, Origin origin, Credentials target, InputStream archive, long length)
            throws SeedException;
}
