package io.roboco.sandbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.runtime.NetworkMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeSettingsTest {
    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", "/home/runtime-settings-test");
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    @Test
    void dockerIsTheDefaultWithItsNetworkModes() {
        ServerConfig config = ServerConfig.fromEnv(env());
        assertThat(config.runtime()).isEqualTo(RuntimeSettings.docker());
        assertThat(config.network()).isInstanceOf(NetworkMode.Host.class);
    }

    @Test
    void kubernetesTakesItsNamespaceKubeconfigAndThePodsNetworkMode() {
        ServerConfig config = ServerConfig.fromEnv(env(
                "ROBOCO_SANDBOX_RUNTIME", "kubernetes",
                "ROBOCO_SANDBOX_K8S_NAMESPACE", "sandboxes",
                "ROBOCO_SANDBOX_K8S_AGENT_NAMESPACE", "agents",
                "ROBOCO_SANDBOX_K8S_START_TIMEOUT", "3m",
                "KUBECONFIG", "/etc/roboco/kubeconfig"));
        assertThat(config.network()).isInstanceOf(NetworkMode.Pods.class);
        var k8s = config.runtime().kubernetesSettings(Duration.ofSeconds(60));
        assertThat(k8s.namespace()).isEqualTo("sandboxes");
        assertThat(k8s.agentsNamespace()).isEqualTo("agents");
        assertThat(k8s.startTimeout()).isEqualTo(Duration.ofMinutes(3));
        assertThat(k8s.kubeconfig()).isEqualTo(Path.of("/etc/roboco/kubeconfig"));
    }

    @Test
    void contradictionsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_RUNTIME", "kubernetes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_K8S_NAMESPACE");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_RUNTIME", "podman")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("docker (default) or kubernetes");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env("ROBOCO_SANDBOX_K8S_NAMESPACE", "sandboxes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ROBOCO_SANDBOX_RUNTIME=kubernetes");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env(
                        "ROBOCO_SANDBOX_RUNTIME", "kubernetes",
                        "ROBOCO_SANDBOX_K8S_NAMESPACE", "Not_A_Namespace")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not a Kubernetes namespace name");
        assertThatThrownBy(() -> ServerConfig.fromEnv(env(
                        "ROBOCO_SANDBOX_RUNTIME", "kubernetes",
                        "ROBOCO_SANDBOX_K8S_NAMESPACE", "sandboxes",
                        "ROBOCO_SANDBOX_NETWORK", "network:agents")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unset ROBOCO_SANDBOX_NETWORK");
    }
}
