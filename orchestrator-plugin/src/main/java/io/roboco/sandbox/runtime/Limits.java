package io.roboco.sandbox.runtime;

/** Resource caps for one sandbox container. */
public record Limits(long memoryBytes, long nanoCpus, long pidsLimit, long tmpfsBytes) {
    public Limits {
        if (memoryBytes <= 0 || nanoCpus <= 0 || pidsLimit <= 0 || tmpfsBytes <= 0) {
            throw new IllegalArgumentException("every limit must be positive: " + this);
        }
    }

    /**
     * 512 MB memory (tmpfs data counts against it), 1 CPU, 512 processes, tmpfs up to 256 MB. What that holds:
     * Postgres {@code pgbench -i -s 10} and a run on it (scale 13 is the largest that initialises); Redis a 384 MB
     * dataset ({@code maxmemory}, 75 % of the memory).
     */
    public static Limits sandboxDefaults() {
        return new Limits(512L * 1024 * 1024, 1_000_000_000L, 512, 256L * 1024 * 1024);
    }

    /**
     * The operator's maximums when none are configured: 2 GB memory, 1 GB data tmpfs, 2 CPUs (pids stay at the
     * default). A project may raise its limits up to these.
     */
    public static Limits operatorMaximums() {
        return new Limits(2048L * 1024 * 1024, 2_000_000_000L, 512, 1024L * 1024 * 1024);
    }

    /** Whether every cap here is at most {@code other}'s. */
    public boolean within(Limits other) {
        return memoryBytes <= other.memoryBytes
                && nanoCpus <= other.nanoCpus
                && pidsLimit <= other.pidsLimit
                && tmpfsBytes <= other.tmpfsBytes;
    }
}
