package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.runtime.ContainerRuntime;
import java.time.Clock;

/** Lets tests with fakes say what seeding a pool container does (there is no database behind a stub engine). */
public final class PoolSeedSteps {
    /** One pool container seeded with the plan's seed, as the seeder {@code seeder}. */
    public interface Step {
        void seed(ServicePlan plan, ProbeTarget seeder, String containerId) throws Exception;
    }

    private PoolSeedSteps() {}

    /** A provisioner whose pool containers are seeded by {@code step}. */
    public static ServiceProvisioner provisioner(
            ContainerRuntime runtime, ProvisionSettings settings, SecretSource secrets, Clock clock, Step step) {
        return new ServiceProvisioner(runtime, settings, secrets, clock, step::seed);
    }
}
