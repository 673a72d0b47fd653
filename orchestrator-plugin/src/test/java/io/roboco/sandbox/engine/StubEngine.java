package io.roboco.sandbox.engine;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An engine for unit tests of the layers above the engines: no driver, no network. Ready when its
 * container runs; live unless a test marks its endpoint dead; a feature activates through one exec
 * ({@code activate <feature>}) so tests can count and script it.
 */
public final class StubEngine implements Engine {
    private final String name;
    private final Set<String> features;
    private final Set<Endpoint> dead = ConcurrentHashMap.newKeySet();
    private final java.util.List<Credentials> claims = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Predicate<Credentials> holdReadiness = c -> false;
    private volatile CountDownLatch release = new CountDownLatch(0);

    public StubEngine(String name, Set<String> features) {
        this.name = name;
        this.features = Set.copyOf(features);
    }

    /** Readiness blocks (up to 10 s) for sandboxes whose credentials match, until {@link #releaseHeld()}. */
    public void holdReadinessWhen(Predicate<Credentials> which) {
        release = new CountDownLatch(1);
        holdReadiness = which;
    }

    public void releaseHeld() {
        release.countDown();
    }

    /** The service at this endpoint stops answering (its container may still run). */
    public void markDead(Endpoint endpoint) {
        dead.add(endpoint);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String displayName() {
        return name.toUpperCase();
    }

    @Override
    public String defaultImage() {
        return "stub/" + name + ":1";
    }

    @Override
    public int defaultPort() {
        return 1000;
    }

    @Override
    public Set<String> features() {
        return features;
    }

    @Override
    public String featuresKey() {
        return features.isEmpty() ? null : "available_features";
    }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        String id = secrets.identifier();
        return new Credentials("admin", secrets.password(), "agent_" + id, secrets.password(), "db_" + id);
    }

    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        return new ContainerSpec(request.image(), Map.of("STUB_ADMIN_PASSWORD", request.credentials().adminPassword()),
                java.util.List.of(name, "--port", Integer.toString(request.port())), "/data", request.port());
    }

    @Override
    public ReadinessProbe readiness() {
        return target -> {
            if (holdReadiness.test(target.credentials())) {
                release.await(10, TimeUnit.SECONDS);
            }
            if (!target.running().getAsBoolean()) {
                throw new IllegalStateException("not running");
            }
        };
    }

    @Override
    public void prepareAgent(ProbeTarget target) {
    }

    /** Records the claim's credentials so tests can check they are fresh. */
    @Override
    public void prepareClaim(ProbeTarget target) {
        if (dead.contains(target.endpoint())) {
            throw new IllegalStateException("connection refused");
        }
        claims.add(target.credentials());
    }

    /** Credentials of every claim prepared so far, in order. */
    public java.util.List<Credentials> claims() {
        return java.util.List.copyOf(claims);
    }

    @Override
    public ReadinessProbe liveness() {
        return target -> {
            if (dead.contains(target.endpoint())) {
                throw new IllegalStateException("connection refused");
            }
        };
    }

    @Override
    public void activate(String feature, ContainerExec exec, Credentials credentials, String image) throws Exception {
        ExecResult result = exec.exec(java.util.List.of("activate", feature));
        if (result.exitCode() == 3) {
            throw new FeatureUnavailableException(name, feature, image, result.output());
        }
        if (!result.ok()) {
            throw new IllegalStateException("activation of " + feature + " failed: " + result.output());
        }
    }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        String prefix = "STUB_" + name.toUpperCase() + "_";
        env.put(prefix + "HOST", endpoint.host());
        env.put(prefix + "PORT", Integer.toString(endpoint.port()));
        env.put(prefix + "USER", credentials.user());
        env.put(prefix + "PASSWORD", credentials.password());
        return env;
    }
}
