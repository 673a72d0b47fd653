package io.roboco.sandbox.engine.kv;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Probes;
import io.roboco.sandbox.engine.ReadinessProbe;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A fourth engine that exists only in test code, written as a new engine would be: one class in its own package,
 * nothing else edited. Its service is imaginary (no image is ever run for real; the fake runtime stands in), so its
 * probes are the driver-free ones and its plugins load through an exec, as Redis modules do.
 */
public final class KvEngine implements Engine {
    @Override
    public String name() {
        return "kv";
    }

    @Override
    public String displayName() {
        return "KeyVault";
    }

    @Override
    public String defaultImage() {
        return "roboco-test/kv:1";
    }

    @Override
    public int defaultPort() {
        return 7100;
    }

    @Override
    public Set<String> features() {
        return Set.of("ttl", "compression");
    }

    @Override
    public String featuresKey() {
        return "available_plugins";
    }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        String id = secrets.identifier();
        return new Credentials("kv_admin", secrets.password(), "agent_" + id, secrets.password(), "ns_" + id);
    }

    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KV_ADMIN_PASSWORD", request.credentials().adminPassword());
        return new ContainerSpec(
                request.image(),
                env,
                List.of("kv-server", "--bind", request.bindHost(), "--port", Integer.toString(request.port())),
                "/var/lib/kv",
                request.port());
    }

    @Override
    public ReadinessProbe readiness() {
        return Probes.running();
    }

    @Override
    public void prepareAgent(ProbeTarget target) {
        // A real engine makes the agent's namespace through its driver here; the imaginary service has none.
    }

    @Override
    public void prepareClaim(ProbeTarget target) {
        prepareAgent(target);
    }

    @Override
    public ReadinessProbe liveness() {
        return Probes.running();
    }

    @Override
    public void activate(AllowedFeature feature, ContainerExec exec, Credentials credentials, String image)
            throws Exception {
        ExecResult result = exec.exec(
                List.of("kv-cli", "plugin", "load", feature.name()), Map.of("KV_AUTH", credentials.adminPassword()));
        if (result.exitCode() == 3) {
            throw new FeatureUnavailableException(name(), feature.name(), image, result.output());
        }
        if (!result.ok()) {
            throw new IllegalStateException(
                    "kv: plugin load " + feature + " failed with exit code " + result.exitCode());
        }
    }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_TEST_KV_HOST", endpoint.host());
        env.put("ROBOCO_TEST_KV_PORT", Integer.toString(endpoint.port()));
        env.put("ROBOCO_TEST_KV_NAME", credentials.database());
        env.put("ROBOCO_TEST_KV_USER", credentials.user());
        env.put("ROBOCO_TEST_KV_PASSWORD", credentials.password());
        env.put(
                "ROBOCO_TEST_KV_URL",
                "kv://" + credentials.user() + ":" + credentials.password() + "@" + endpoint.host() + ":"
                        + endpoint.port() + "/" + credentials.database());
        return env;
    }
}
