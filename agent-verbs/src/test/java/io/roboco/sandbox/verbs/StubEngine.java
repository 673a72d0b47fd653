package io.roboco.sandbox.verbs;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.ReadinessProbe;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** An engine that is ready at once and answers env in the real engines' key shape. For unit tests. */
public final class StubEngine implements Engine {
    private final String name;
    private final String envPrefix;
    private final Set<String> features;
    private final String featuresKey;

    public StubEngine(String name, String envPrefix, Set<String> features, String featuresKey) {
        this.name = name;
        this.envPrefix = envPrefix;
        this.features = Set.copyOf(features);
        this.featuresKey = featuresKey;
    }

    /** postgres, redis and mongo stubs with the real allowlists. */
    public static EngineRegistry registry() {
        return EngineRegistry.of(List.of(
                new StubEngine("postgres", "ROBOCO_TEST_DB_", Set.of("vector", "postgis", "pg_trgm", "citext", "uuid-ossp"), "available_extensions"),
                new StubEngine("redis", "ROBOCO_TEST_REDIS_", Set.of("search", "json", "bloom"), "available_modules"),
                new StubEngine("mongo", "ROBOCO_TEST_MONGO_", Set.of(), null)));
    }

    @Override public String name() { return name; }
    @Override public String displayName() { return name; }
    @Override public String defaultImage() { return "stub/" + name + ":1"; }
    @Override public int defaultPort() { return 1000; }
    @Override public Set<String> features() { return features; }
    @Override public String featuresKey() { return featuresKey; }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        return new Credentials("admin", secrets.password(), "agent_" + secrets.identifier(), secrets.password(), "db_" + secrets.identifier());
    }

    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        return new ContainerSpec(request.image(), Map.of("ADMIN_PASSWORD", request.credentials().adminPassword()), List.of(), "/data", request.port());
    }

    @Override public ReadinessProbe readiness() { return target -> { }; }
    @Override public void prepareAgent(ProbeTarget target) { }
    @Override public void prepareClaim(ProbeTarget target) { }
    @Override public ReadinessProbe liveness() { return target -> { }; }
    @Override public void activate(String feature, ContainerExec exec, Credentials credentials, String image) { }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(envPrefix + "HOST", endpoint.host());
        env.put(envPrefix + "PORT", Integer.toString(endpoint.port()));
        env.put(envPrefix + "USER", credentials.user());
        env.put(envPrefix + "PASSWORD", credentials.password());
        env.put(envPrefix + "URL", name + "://" + credentials.user() + ":" + credentials.password() + "@" + endpoint);
        return env;
    }
}
