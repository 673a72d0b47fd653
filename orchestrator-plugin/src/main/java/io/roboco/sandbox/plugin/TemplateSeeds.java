package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.template.TemplateStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A template asked for per call ({@code request_sandbox(template=…)}, {@code create_sandbox(template=…)}): it becomes
 * the seed of that one new sandbox, in place of the project's, on the project's service whose engine restores dumps
 * ({@link Engine#dumps}; Postgres). Templates belong to a project: the name is looked up among the project's own (saved
 * from its sandboxes, or copied there by the operator), and a refusal names only those; the major check is the guard
 * chain's, as for a project seed.
 */
final class TemplateSeeds {
    private TemplateSeeds() {}

    /** Why {@code name} cannot seed a new sandbox of {@code project} per call; empty when it can. */
    static Optional<String> refusal(String name, Project project, TemplateStore store, EngineRegistry registry) {
        if (!TemplateName.isValid(name)) {
            return Optional.of(TemplateName.SHAPE.mustBe("template", name));
        }
        if (service(project, registry).isEmpty()) {
            return Optional.of("a template restores into " + registry.namesOffering(Engine::dumps)
                    + ", which is not in project '" + project.id() + "''s sandbox_services " + project.services());
        }
        if (store.find(project.id(), name).isEmpty()) {
            return Optional.of("project '" + project.id() + "' has no template '" + name + "'; its templates: "
                    + store.knownNames(project.id()) + " (save_template makes one)");
        }
        return Optional.empty();
    }

    /**
     * {@code project} with {@code name} as the seed of its service that restores dumps, for one call (one-off: it does not
     * touch the project's seeded pool); the project as it is when its own seed is that template already (its seeded pool
     * serves it). Called after {@link #refusal} found none.
     */
    static Project seededWith(Project project, String name, EngineRegistry registry) {
        String service = service(project, registry).orElseThrow();
        if (project.seedFor(service) instanceof Seed.Template own && own.name().equals(name)) {
            return project;
        }
        Map<String, Seed> seeds = new TreeMap<>(project.seeds());
        seeds.put(service, new Seed.Template(name, "", true));
        return project.withSeeds(seeds);
    }

    /** The project's service whose engine restores dumps (the first in the registry's order). */
    private static Optional<String> service(Project project, EngineRegistry registry) {
        return registry.firstOffering(project.services(), Engine::dumps).map(Engine::name);
    }
}
