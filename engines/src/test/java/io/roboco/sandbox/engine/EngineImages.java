package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

/** The engines' ITs need the Docker daemon and a locally built image; a missing one is a failure, not a skip. */
public final class EngineImages {
    private EngineImages() {}

    public static void requireLocal(String image) {
        ExecResult version = DockerCli.docker(List.of("docker", "version", "-f", "{{.Server.Version}}"), Map.of(), 20);
        assertThat(version.ok())
                .as("Docker daemon reachable (the ITs need it): %s", version.output())
                .isTrue();
        assertThat(DockerCli.imageExists(image))
                .as("image %s is built locally (scripts build it; nothing can be pulled here)", image)
                .isTrue();
    }
}
