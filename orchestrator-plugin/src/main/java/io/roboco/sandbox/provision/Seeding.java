package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.postgres.PostgresSeeds;
import io.roboco.sandbox.engine.postgres.SeedException;

import java.util.function.Function;

/**
 * Applies a plan's {@link Seed} to a freshly prepared sandbox database, after activation, as the agent's role.
 * A clone's source URL is read from the server's environment at the moment of seeding, under the name the project
 * stores; it is never stored, logged or echoed.
 */
final class Seeding {
    private final Function<String, String> environment;

    Seeding(Function<String, String> environment) {
        this.environment = environment;
    }

    void apply(ServicePlan plan, ProbeTarget target, ContainerExec exec) throws SeedException {
        Seed seed = plan.seed();
        if (seed == null) {
            return;
        }
        if (!plan.service().equals("postgres")) {
            throw new SeedException(plan.service() + " sandboxes take no seed; seeds are for postgres");
        }
        if (seed instanceof Seed.Sql sql) {
            PostgresSeeds.applySql(target, sql.script());
        } else if (seed instanceof Seed.Clone clone) {
            String url = environment.apply(clone.urlEnv());
            if (url == null || url.isBlank()) {
                throw new SeedException("clone source: the server's environment has no " + clone.urlEnv()
                        + "; set it to the source's postgresql:// URL and restart the server");
            }
            PostgresSeeds.cloneFrom(exec, target, url.strip(), clone.maxRowsPerTable());
        } else if (seed instanceof Seed.Template template) {
            throw new SeedException("template seeds are not available yet (template '" + template.name() + "')");
        }
    }
}
