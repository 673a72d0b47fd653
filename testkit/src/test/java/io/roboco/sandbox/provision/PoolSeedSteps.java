package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ProbeTarget;

/** Lets tests with fakes say what seeding a pool container does (there is no database behind a stub engine). */
public final class PoolSeedSteps {
    /** One pool container seeded with the plan's seed, as the seeder {@code seeder}. */
    public interface Step {
        void seed(ServicePlan plan, ProbeTarget seeder, String containerId) throws Exception;
    }

    private PoolSeedSteps() {}

    public static ServiceProvisioner seedPoolsWith(ServiceProvisioner provisioner, Step step) {
        return provisioner.seedPoolsWith(step::seed);
    }
}
