package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.Printable;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.manager.SandboxRequest.Validation;
import io.roboco.sandbox.provision.ImageChoice;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks behind {@link SandboxRequest#validate}, in order; the first that fails is the refusal. Messages say what
 * is allowed and what to do. Caller input is echoed through {@link Printable}.
 */
final class RequestChecks {
    private final EngineRegistry registry;
    private final ProvisionSettings images;
    private final TemplateStore templates;

    RequestChecks(EngineRegistry registry, ProvisionSettings images, TemplateStore templates) {
        this.registry = registry;
        this.images = images;
        this.templates = templates;
    }

    Validation validate(String agent, Project project, List<String> asked, Map<String, List<String>> perCall) {
        Map<String, Engine> engines = new LinkedHashMap<>();
        for (String service : project.services()) {
            Optional<Engine> engine = registry.find(service);
            if (engine.isEmpty()) {
                return refused("project '" + project.id() + "''s sandbox_services names '" + Printable.of(service)
                        + "', which this server does not offer (known: " + String.join(", ", registry.names())
                        + "); an operator can fix it on the project's Sandbox settings card");
            }
            engines.put(service, engine.get());
        }
        String allowedServices = String.join(", ", project.services());
        for (String service : asked) {
            if (!engines.containsKey(service)) {
                return refused("service '" + Printable.of(service) + "' is not in project '" + project.id()
                        + "''s sandbox set; allowed: " + allowedServices);
            }
        }
        for (Map.Entry<String, List<String>> entry : perCall.entrySet()) {
            Engine engine = engines.get(entry.getKey());
            if (engine == null) {
                return refused(
                        "extensions given for service '" + Printable.of(entry.getKey()) + "', which is not in project '"
                                + project.id() + "''s sandbox set; allowed: " + allowedServices);
            }
            for (String feature : entry.getValue()) {
                if (Features.allow(engine, feature).isEmpty()) {
                    return refused(notAllowed(engine, feature));
                }
            }
        }
        Map<String, ServicePlan> plans = new LinkedHashMap<>();
        for (Engine engine : engines.values()) {
            Set<AllowedFeature> standing = new TreeSet<>();
            for (String feature : project.extensionsFor(engine.name())) {
                Optional<AllowedFeature> allowed = Features.allow(engine, feature);
                if (allowed.isEmpty()) {
                    return refused("project '" + project.id() + "''s sandbox_extensions: " + notAllowed(engine, feature)
                            + "; an operator can fix it on the project's Sandbox settings card");
                }
                standing.add(allowed.get());
            }
            ImageChoice choice;
            try {
                choice = images.choose(engine, project.versionFor(engine.name()));
            } catch (UnknownNameException e) {
                return refused("project '" + project.id() + "''s sandbox_versions: " + e.getMessage());
            }
            Set<AllowedFeature> wanted = new TreeSet<>(standing);
            perCall.getOrDefault(engine.name(), List.of()).forEach(f -> wanted.add(Features.require(engine, f)));
            for (AllowedFeature feature : wanted) {
                if (!choice.features().contains(feature.name())) {
                    return refused(notOffered(engine, choice, feature.name()));
                }
            }
            Seed seed = project.seedFor(engine.name());
            if (seed instanceof Seed.Template template) {
                Optional<String> refusal = templateRefusal(project, template.name(), choice);
                if (refusal.isPresent()) {
                    return refused(refusal.get());
                }
                TemplateInfo info =
                        templates.find(project.id(), template.name()).orElseThrow();
                seed = template.resolved(
                        project.id(), info.created() + "/" + info.schemaDigest() + "/" + info.sizeBytes());
            }
            plans.put(
                    engine.name(),
                    new ServicePlan(
                            engine,
                            choice,
                            wanted,
                            seed,
                            project.limitsFor(engine.name()).over(images.limits())));
        }
        return new Validation.Valid(new SandboxRequest(agent, project, List.copyOf(new LinkedHashSet<>(asked)), plans));
    }

    /**
     * A template seed that the project does not have (templates belong to a project; the refusal names only its own), or
     * that was saved from a newer major than the one the project runs; before anything starts.
     */
    private Optional<String> templateRefusal(Project project, String name, ImageChoice choice) {
        Optional<TemplateInfo> info = templates.find(project.id(), name);
        if (info.isEmpty()) {
            return Optional.of("template '" + Printable.of(name) + "' (the seed of project '" + project.id()
                    + "') is not one of the" + " project's templates; its templates: "
                    + templates.knownNames(project.id()));
        }
        return info.get().refusalFor(choice.major(), "project '" + project.id() + "' (" + choice.describe() + ")");
    }

    private static Validation refused(String reason) {
        return new Validation.Invalid(reason);
    }

    private static String notAllowed(Engine engine, String feature) {
        return engine.name() + " " + featureWord(engine) + " '" + Printable.of(feature) + "' is not allowed; allowed: "
                + Features.allowlist(engine);
    }

    /** An allowlisted feature the image of the project's major lacks, naming the majors whose images offer it. */
    private String notOffered(Engine engine, ImageChoice choice, String feature) {
        List<String> majors = images.majorsOffering(engine, feature);
        String where = choice.major().isEmpty()
                ? "the server's " + engine.name() + " image " + choice.image()
                : engine.displayName() + " " + choice.major() + " (image " + choice.image() + ")";
        String fix = majors.isEmpty()
                ? "no configured " + engine.name()
                        + " major offers it; an operator can configure an image that ships it"
                : "offered by " + engine.name() + " " + String.join(", ", majors)
                        + "; set the project's sandbox_versions to {\"" + engine.name() + "\":\""
                        + majors.get(majors.size() - 1) + "\"}";
        return engine.name() + " " + featureWord(engine) + " '" + feature + "' is not available in " + where + "; "
                + fix;
    }

    /** What the engine calls a feature, from its envelope key: {@code available_modules} → module; extension by default. */
    private static String featureWord(Engine engine) {
        String key = engine.featuresKey();
        if (key == null
                || !key.startsWith("available_")
                || !key.endsWith("s")
                || key.length() <= "available_s".length()) {
            return "extension";
        }
        return key.substring("available_".length(), key.length() - 1).replace('_', ' ');
    }
}
