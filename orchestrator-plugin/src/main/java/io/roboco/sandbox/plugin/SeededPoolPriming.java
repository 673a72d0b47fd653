package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.Project;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a seeded project's seeded pools when the project is saved and when the server starts, instead of at its
 * first request, so that request is a claim too. The plans are the ones a request without per-call extensions would
 * make (the guard chain's validation, the project's standing extensions); a project whose settings do not validate,
 * or without a seed, or a server keeping no seeded pools, primes nothing. The project's seeded pools its plans no
 * longer claim from (its seed removed, another major) are discarded. Never fails the caller.
 */
final class SeededPoolPriming {
    private static final Logger log = LoggerFactory.getLogger(SeededPoolPriming.class);

    private final EngineRegistry registry;
    private final SandboxManager manager;

    SeededPoolPriming(EngineRegistry registry, SandboxManager manager) {
        this.registry = registry;
        this.manager = manager;
    }

    /** How many seeded pools {@code project} now has filling (0: none to prime). */
    int prime(Project project) {
        Optional<WarmPool> pool = manager.pool();
        if (pool.isEmpty() || pool.get().sizes().seeded() == 0) {
            return 0;
        }
        try {
            if (project.seeds().isEmpty()) {
                pool.get().retainSeeded(project.id(), List.of()); // its seed was removed: its pools go
                return 0;
            }
            ServiceProvisioner provisioner = manager.provisioner();
            SandboxRequest.Validation validation = SandboxRequest.validate(
                    registry,
                    provisioner.settings(),
                    provisioner.templates(),
                    ServiceProvisioner.POOL_OWNER,
                    project,
                    project.services(),
                    Map.of());
            if (!(validation instanceof SandboxRequest.Validation.Valid valid)) {
                return 0; // the request itself will be refused, naming why
            }
            pool.get()
                    .retainSeeded(
                            project.id(),
                            valid.request().plans()); // another major, a service dropped: the old pools go
            int primed = 0;
            for (ServicePlan plan : valid.request().plans()) {
                primed += pool.get().prime(plan, project.id()) ? 1 : 0;
            }
            return primed;
        } catch (RuntimeException e) {
            log.warn(
                    "seeded warm pool of project {} not primed ({}); its first request makes it",
                    project.id(),
                    e.getMessage());
            return 0;
        }
    }
}
