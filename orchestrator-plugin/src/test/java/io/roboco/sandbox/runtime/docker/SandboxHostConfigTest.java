package io.roboco.sandbox.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.LogCap;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.runtime.VolumeMount;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SandboxHostConfigTest {
    private final RunRequest request = new RunRequest(
            "sbx-test",
            new ContainerSpec("img", Map.of(), List.of(), "/data", 5432),
            Map.of(),
            Limits.sandboxDefaults(),
            NetworkMode.host(),
            RunRequest.ENTRYPOINT_CAPABILITIES);

    @Test
    void everyContainerLogsThroughJsonFileCappedInSizeAndFilesWhateverTheDaemonDefault() {
        HostConfig host = SandboxHostConfig.of(request, new LogCap(1024 * 1024, 3));

        assertThat(host.getLogConfig().getType()).isEqualTo(LogConfig.LoggingType.JSON_FILE);
        assertThat(host.getLogConfig().getConfig())
                .containsOnly(Map.entry("max-size", "1048576"), Map.entry("max-file", "3"));
    }

    @Test
    void theDefaultCapIsTwentyMegabytesPerContainer() {
        assertThat(LogCap.defaults().maxTotalBytes()).isEqualTo(20L * 1024 * 1024);
        assertThat(SandboxHostConfig.of(request, LogCap.defaults())
                        .getLogConfig()
                        .getConfig())
                .containsEntry("max-size", "10485760")
                .containsEntry("max-file", "2");
    }

    @Test
    void aCapTooSmallToDiagnoseAStartOrWithoutFilesIsRefused() {
        assertThatThrownBy(() -> new LogCap(1024, 2)).hasMessageContaining("at least 64 KB");
        assertThatThrownBy(() -> new LogCap(LogCap.DEFAULT_FILE_BYTES, 0)).hasMessageContaining("1-100 files");
    }

    @Test
    void aContainerMountsNoVolumeButTheNamedOnesItsRequestAsksForReadOnlyWhenAsked() {
        assertThat(SandboxHostConfig.of(request, LogCap.defaults()).getBinds()).isNullOrEmpty();

        HostConfig host = SandboxHostConfig.of(
                request.withVolumes(List.of(
                        new VolumeMount("tpl-copy", "/roboco-template", true),
                        new VolumeMount("tpl-fill", "/roboco-fill", false))),
                LogCap.defaults());

        assertThat(host.getBinds())
                .extracting(b -> b.getPath() + " " + b.getVolume().getPath() + " " + b.getAccessMode())
                .containsExactly("tpl-copy /roboco-template ro", "tpl-fill /roboco-fill rw");
        assertThat(host.getTmpFs()).containsOnlyKeys("/data");
    }
}
