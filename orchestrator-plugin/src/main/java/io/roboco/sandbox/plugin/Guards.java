package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.template.TemplateStore;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Step 4 of the {@link GuardChain}: the services and features asked for, against the project's set, the engines'
 * allowlists and the images of the project's majors; a validated {@link SandboxRequest} or a refusal that names what is
 * allowed.
 */
final class Guards {
    private final EngineRegistry registry;
    private final ProvisionSettings images;
    private final Supplier<TemplateStore> templates;

    Guards(EngineRegistry registry, ProvisionSettings images) {
        this(registry, images, TemplateStore::none);
    }

    Guards(EngineRegistry registry, ProvisionSettings images, Supplier<TemplateStore> templates) {
        this.registry = registry;
        this.images = images;
        this.templates = templates;
    }

    /**
     * 4. Every service asked for inside the project's set, each service of the set a registered engine, every
     * feature (standing and per call) on its engine's allowlist and offered by the image of the project's major.
     * Valid, the request is the validated type everything after the guards takes.
     */
    SandboxRequest.Validation allowed(
            String slug, Project project, List<String> services, Map<String, List<String>> features) {
        return SandboxRequest.validate(registry, images, templates.get(), slug, project, services, features);
    }
}
