package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.settings.Project;
import java.util.List;
import java.util.Map;

/** Valid requests for tests that drive the manager directly; a refusal fails the test with its reason. */
public final class Requests {
    private Requests() {}

    public static SandboxRequest valid(
            EngineRegistry registry,
            ProvisionSettings settings,
            String agent,
            Project project,
            List<String> services,
            Map<String, List<String>> extensions) {
        SandboxRequest.Validation validation =
                SandboxRequest.validate(registry, settings, agent, project, services, extensions);
        if (validation instanceof SandboxRequest.Validation.Valid valid) {
            return valid.request();
        }
        throw new AssertionError("request refused: " + ((SandboxRequest.Validation.Invalid) validation).reason());
    }
}
