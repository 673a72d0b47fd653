package io.roboco.sandbox.testkit;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.PoolSeeding;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.ReadinessProbe;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The engine fake, for tests of the layers above the engines: no driver, no network. Passes
 * {@link EngineContract}, as the real engines do. Ready when its container runs; live unless a test
 * marks its endpoint dead; a feature activates through one exec ({@code activate <feature>}) so tests
 * can count and script it (exit 3: the image lacks the feature).
 *
 * <p>{@link #registry()} gives postgres, redis and mongo stubs with the real engines' allowlists, env
 * keys ({@code ROBOCO_TEST_DB_*}, …) and feature words, for tests that read envelopes.
 */
public final class StubEngine implements Engine {
    private final String name;
    private final String envPrefix;
    private final Set<String> features;
    private final String featuresKey;
    private final Set<Endpoint> dead = ConcurrentHashMap.newKeySet();
    private final List<Credentials> claims = new CopyOnWriteArrayList<>();
    private final List<Credentials> retired = new CopyOnWriteArrayList<>();
    private final List<Credentials> handovers = new CopyOnWriteArrayList<>();
    private volatile Predicate<Credentials> holdReadiness = c -> false;
    private volatile CountDownLatch release = new CountDownLatch(0);
    private volatile CountDownLatch held = new CountDownLatch(1);
    private volatile Checkpoints checkpoints;

    /** A stub whose env keys are {@code STUB_<NAME>_*} and whose features are "available_features". */
    public StubEngine(String name, Set<String> features) {
        this(
                name,
                "STUB_" + name.toUpperCase(Locale.ROOT) + "_",
                features,
                features.isEmpty() ? null : "available_features");
    }

    /** A stub that answers env under {@code envPrefix} (e.g. {@code ROBOCO_TEST_DB_}) and names its features {@code featuresKey}. */
    public StubEngine(String name, String envPrefix, Set<String> features, String featuresKey) {
        this.name = name;
        this.envPrefix = envPrefix;
        this.features = Set.copyOf(features);
        this.featuresKey = featuresKey;
    }

    /** postgres, redis and mongo stubs with the real allowlists, env keys and feature words. */
    public static EngineRegistry registry() {
        return EngineRegistry.of(List.of(
                new StubEngine(
                        "postgres",
                        "ROBOCO_TEST_DB_",
                        Set.of("vector", "postgis", "pg_trgm", "citext", "uuid-ossp"),
                        "available_extensions"),
                new StubEngine("redis", "ROBOCO_TEST_REDIS_", Set.of("search", "json", "bloom"), "available_modules"),
                new StubEngine("mongo", "ROBOCO_TEST_MONGO_", Set.of(), null)));
    }

    // ---- scripting -------------------------------------------------------------------------------

    /** This stub offering {@code checkpoints} ({@link Engine#checkpoints}), as an engine with that data feature does. */
    public StubEngine offering(Checkpoints checkpoints) {
        this.checkpoints = checkpoints;
        return this;
    }

    /**
     * Readiness blocks (up to 10 s) for sandboxes whose credentials match, until {@link #releaseHeld()};
     * {@link #awaitHeld} tells when the first of them is blocked there.
     */
    public void holdReadinessWhen(Predicate<Credentials> which) {
        release = new CountDownLatch(1);
        held = new CountDownLatch(1);
        holdReadiness = which;
    }

    /** Waits until a readiness check is blocked by {@link #holdReadinessWhen}; false when none was within {@code timeout}. */
    public boolean awaitHeld(Duration timeout) throws InterruptedException {
        return held.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public void releaseHeld() {
        release.countDown();
    }

    /** The service at this endpoint stops answering (its container may still run). */
    public void markDead(Endpoint endpoint) {
        dead.add(endpoint);
    }

    /** Seeders retired so far (their seed is in), in order. */
    public List<Credentials> retiredSeeders() {
        return List.copyOf(retired);
    }

    /** Credentials of every seeded claim handed over so far, in order. */
    public List<Credentials> handovers() {
        return List.copyOf(handovers);
    }

    /** Credentials of every claim prepared so far, in order. */
    public List<Credentials> claims() {
        return List.copyOf(claims);
    }

    // ---- Engine ----------------------------------------------------------------------------------

    @Override
    public String name() {
        return name;
    }

    @Override
    public String displayName() {
        return name.toUpperCase(Locale.ROOT);
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
        return featuresKey;
    }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        String id = secrets.identifier();
        return new Credentials("admin", secrets.password(), "agent_" + id, secrets.password(), "db_" + id);
    }

    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        return new ContainerSpec(
                request.image(),
                Map.of("STUB_ADMIN_PASSWORD", request.credentials().adminPassword()),
                List.of(name, "--bind", request.bindHost(), "--port", Integer.toString(request.port())),
                "/data",
                request.port());
    }

    @Override
    public ReadinessProbe readiness() {
        return target -> {
            if (holdReadiness.test(target.credentials())) {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
            if (!target.running().getAsBoolean()) {
                throw new IllegalStateException("not running");
            }
        };
    }

    @Override
    public void prepareAgent(ProbeTarget target) {}

    /** Records the claim's credentials so tests can check they are fresh. */
    @Override
    public void prepareClaim(ProbeTarget target) {
        if (dead.contains(target.endpoint())) {
            throw new IllegalStateException("connection refused");
        }
        claims.add(target.credentials());
    }

    /** The checkpoints given to {@link #offering}; none by default. */
    @Override
    public Optional<Checkpoints> checkpoints() {
        return Optional.ofNullable(checkpoints);
    }

    /** Seeded pool containers: a seeder pair {@code seeder_<id>} / {@code db_<id>}; retirements and handovers recorded. */
    @Override
    public Optional<PoolSeeding> poolSeeding() {
        return Optional.of(new PoolSeeding() {
            @Override
            public Credentials seeder(Credentials pooled, SecretSource secrets) {
                String id = secrets.identifier();
                return new Credentials(
                        pooled.adminUser(), pooled.adminPassword(), "seeder_" + id, secrets.password(), "db_" + id);
            }

            @Override
            public void prepareSeeder(ProbeTarget seeder) {}

            @Override
            public void retireSeeder(ProbeTarget seeder) {
                retired.add(seeder.credentials());
            }

            @Override
            public ClaimSession openClaimSession(ProbeTarget seeder, Credentials claim) {
                return ClaimSession.holdingNothing(claim, target -> {
                    if (dead.contains(target.endpoint())) {
                        throw new IllegalStateException("connection refused");
                    }
                    handovers.add(target.credentials());
                });
            }
        });
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
    public void activate(AllowedFeature allowed, ContainerExec exec, Credentials credentials, String image)
            throws Exception {
        String feature = allowed.name();
        ExecResult result = exec.exec(List.of("activate", feature));
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
        env.put(envPrefix + "HOST", endpoint.host());
        env.put(envPrefix + "PORT", Integer.toString(endpoint.port()));
        env.put(envPrefix + "USER", credentials.user());
        env.put(envPrefix + "PASSWORD", credentials.password());
        env.put(
                envPrefix + "URL",
                name + "://" + credentials.user() + ":" + credentials.password() + "@" + endpoint.host() + ":"
                        + endpoint.port());
        return env;
    }
}
