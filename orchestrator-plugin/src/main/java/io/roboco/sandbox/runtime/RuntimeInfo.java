package io.roboco.sandbox.runtime;

/**
 * What the container runtime's host says about itself, for capacity and the doctor.
 *
 * @param serverVersion e.g. {@code 20.10.24}; empty when unknown
 * @param apiVersion    e.g. {@code 1.41}; empty when unknown
 * @param memoryBytes   the host's total memory; 0 when unknown
 * @param cpus          the host's CPUs; 0 when unknown
 */
public record RuntimeInfo(String serverVersion, String apiVersion, long memoryBytes, int cpus) {
    public RuntimeInfo {
        serverVersion = serverVersion == null ? "" : serverVersion;
        apiVersion = apiVersion == null ? "" : apiVersion;
    }

    public static RuntimeInfo unknown() {
        return new RuntimeInfo("", "", 0, 0);
    }
}
