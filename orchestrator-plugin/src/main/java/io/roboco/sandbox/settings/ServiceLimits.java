package io.roboco.sandbox.settings;

import io.roboco.sandbox.runtime.Limits;

/**
 * What a project sets for one service's sandbox container (its Sandbox card, {@code sandbox_limits} in the project
 * API): memory, the data tmpfs and CPU. A 0 means "the server's default" ({@link Limits#sandboxDefaults()} unless
 * the operator changed it). Validated against the operator's maximums by {@link ProjectForm}.
 */
public record ServiceLimits(long memoryBytes, long dataBytes, long nanoCpus) {
    public static final ServiceLimits DEFAULTS = new ServiceLimits(0, 0, 0);

    public ServiceLimits {
        if (memoryBytes < 0 || dataBytes < 0 || nanoCpus < 0) {
            throw new IllegalArgumentException("limits must be 0 (default) or positive");
        }
    }

    public boolean isDefault() {
        return memoryBytes == 0 && dataBytes == 0 && nanoCpus == 0;
    }

    /** The container's caps: these limits where set, {@code defaults} elsewhere (pids always from the defaults). */
    public Limits over(Limits defaults) {
        return new Limits(
                memoryBytes > 0 ? memoryBytes : defaults.memoryBytes(),
                nanoCpus > 0 ? nanoCpus : defaults.nanoCpus(),
                defaults.pidsLimit(),
                dataBytes > 0 ? dataBytes : defaults.tmpfsBytes());
    }
}
