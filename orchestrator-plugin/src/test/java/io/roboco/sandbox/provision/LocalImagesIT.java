package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The tests' docker CLI helper reports a command that failed instead of returning its error text as output. */
class LocalImagesIT {
    @Test
    void aDockerCommandThatFailsThrowsWithItsStatusAndOutput() {
        assertThatThrownBy(() -> LocalImages.docker("kill", "roboco-no-such-container-for-local-images-it"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(
                        "docker kill roboco-no-such-container-for-local-images-it exited with status 1: ")
                .hasMessageContaining("No such container");
    }

    @Test
    void aDockerCommandThatSucceedsReturnsItsOutput() {
        assertThat(LocalImages.docker("version", "--format", "{{.Server.APIVersion}}")
                        .strip())
                .matches("\\d+\\.\\d+");
    }
}
