package io.roboco.sandbox.runtime;

/** Resource caps for one sandbox container. */
public record Limits(long memoryBytes, long nanoCpus, long pidsLimit, long tmpfsBytes) {
    /** 512 MB memory (tmpfs data counts against it), 1 CPU, 512 processes, tmpfs up to 256 MB. */
    public static Limits sandboxDefaults() {
        return new Limits(512L * 1024 * 1024, 1_000_000_000L, 512, 256L * 1024 * 1024);
    }
}
