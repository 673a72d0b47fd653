package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.settings.Project;

import java.util.List;
import java.util.Map;

/** Admitted requests for tests that drive the manager directly; a refusal fails the test with its reason. */
public final class Requests {
    private Requests() {
    }

    public static SandboxRequest admitted(EngineRegistry registry, ProvisionSettings settings, String agent, Project project,
                                          List<String> services, Map<String, List<String>> extensions) {
        SandboxRequest.Admission admission = SandboxRequest.admit(registry, settings, agent, project, services, extensions);
        if (admission instanceof SandboxRequest.Admission.Admitted admitted) {
            return admitted.request();
        }
        throw new AssertionError("request refused: " + ((SandboxRequest.Admission.Refused) admission).reason());
    }
}
