package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.Dumps;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SeedException;
import io.roboco.sandbox.engine.Seeds;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.function.Function;

/**
 * Applies a plan's {@link Seed} to a freshly prepared sandbox database, after activation, as the agent's role, through
 * what the plan's engine offers: {@link Engine#seeds} for a script or a clone, {@link Engine#dumps} for a template.
 * A clone's source URL is read from the server's environment at the moment of seeding, under the name the project
 * stores; it is never stored, logged or echoed. A template's dump is read from the {@link TemplateStore} and restored
 * only into the major it was saved from or a newer one (checked against the running server, as a last line behind the
 * guard's check of the project's major).
 */
final class Seeding {
    private final Function<String, String> environment;
    private final TemplateStore templates;

    /** Clone sources' URLs read from {@code environment}; template seeds from {@code templates}. */
    Seeding(Function<String, String> environment, TemplateStore templates) {
        this.environment = environment;
        this.templates = templates;
    }

    TemplateStore templates() {
        return templates;
    }

    void apply(ServicePlan plan, ProbeTarget target, ContainerExec exec) throws SeedException {
        Seed seed = plan.seed();
        if (seed == null) {
            return;
        }
        Engine engine = plan.engine();
        if (seed instanceof Seed.Template template) {
            restore(template, target, exec, offered(plan, engine.dumps(), "template restore"));
            return;
        }
        Seeds seeds = offered(plan, engine.seeds(), "seeding");
        if (seed instanceof Seed.Sql sql) {
            seeds.applyScript(target, sql.script());
        } else if (seed instanceof Seed.Clone clone) {
            String url = environment.apply(clone.urlEnv());
            if (url == null || url.isBlank()) {
                throw new SeedException("clone source: the server's environment has no " + clone.urlEnv()
                        + "; set it to the source's postgresql:// URL and restart the server");
            }
            seeds.cloneFrom(
                    exec,
                    target,
                    url.strip(),
                    clone.maxRowsPerTable(),
                    CloneMask.of(clone.mask()),
                    "$" + clone.urlEnv());
        }
    }

    /** What the plan's engine offers for its seed; the project's settings and the guard chain let no other seed through. */
    private static <T> T offered(ServicePlan plan, Optional<T> feature, String what) throws SeedException {
        if (feature.isEmpty()) {
            throw new SeedException(
                    plan.service() + " sandboxes take no seed; the " + plan.service() + " engine offers no " + what);
        }
        return feature.get();
    }

    private void restore(Seed.Template template, ProbeTarget target, ContainerExec exec, Dumps dumps)
            throws SeedException {
        String name = template.name();
        String project = template.project();
        TemplateInfo info = templates
                .find(project, name)
                .orElseThrow(() -> new SeedException("project '" + project + "' has no template '" + name
                        + "' (its templates: " + templates.knownNames(project) + ")"));
        int major;
        try {
            major = dumps.serverMajor(target);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new SeedException(
                    "template '" + name + "': the sandbox's server version could not be read: " + e.getMessage());
        }
        Optional<String> refusal = info.refusalFor(Integer.toString(major), "this sandbox");
        if (refusal.isPresent()) {
            throw new SeedException(refusal.get());
        }
        try (InputStream dump = templates.open(project, name)) {
            dumps.restore(exec, target, dump);
        } catch (IOException e) {
            throw new SeedException("template '" + name + "': its dump could not be read: " + e.getMessage());
        }
    }
}
