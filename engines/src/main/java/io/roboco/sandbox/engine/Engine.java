package io.roboco.sandbox.engine;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a sandbox of one kind looks like: its container, how it becomes ready, how the agent's
 * least-privileged credential is made, which features may be activated, and the env an agent gets.
 *
 * <p>Adding an engine is one implementation of this interface plus one line in
 * {@link EngineRegistry#defaults()}. What an engine can do beyond the basics is an optional capability it returns
 * ({@link #poolSeeding}, and the data features {@link #seeds}, {@link #dumps}, {@link #physicalCopies}, {@link #checkpoints},
 * {@link #dataDiffs}, {@link #schemaSnapshots}); the core asks which engines offer one ({@link EngineRegistry#offering}) and names none. Implementations are stateless and thread-safe.
 */
public interface Engine {

    /** Registry key and label value, e.g. {@code postgres}. Lower case, no spaces. */
    String name();

    /** Human name for pages, e.g. {@code PostgreSQL}. */
    String displayName();

    /** Production default image, e.g. {@code postgres:16-alpine}. Overridable per engine. */
    String defaultImage();

    /**
     * Majors a project may pick with {@code sandbox_versions}, oldest first, e.g. {@code [15, 16, 17]}; empty when
     * the engine offers no choice (the configured image is the only one).
     */
    default List<String> majors() {
        return List.of();
    }

    /** The production image of one of {@link #majors()}, e.g. {@code postgres:17-alpine}. Overridable per major. */
    default String defaultImage(String major) {
        throw new UnknownNameException(name() + " has no major '" + Printable.of(major) + "'; known: "
                + (majors().isEmpty() ? "none (configure the image instead)" : String.join(", ", majors())));
    }

    /** The major {@code image} runs, when its reference says so in a naming the engine knows; empty otherwise. */
    default Optional<String> majorOf(String image) {
        return Optional.empty();
    }

    /**
     * The allowlisted features {@code image} carries, as far as the engine knows that image: always a subset of
     * {@link #features()} (an image never widens the allowlist). An image the engine does not know gets the whole
     * allowlist, and activation is then the check ({@link FeatureUnavailableException}).
     */
    default Set<String> imageFeatures(String image) {
        return features();
    }

    /** Port the service listens on inside a named network. */
    int defaultPort();

    /** The fixed allowlist of activatable features (extensions, modules). Empty when none. */
    Set<String> features();

    /**
     * The allowlisted feature that a module or extension the running service reports as loaded provides (Redis: the
     * loaded module {@code ft} is the feature {@code search}), if it is one of {@link #features()}; by default none.
     * What inspection asks to turn what the service says into feature names, without knowing the engine.
     */
    default Optional<String> featureOfLoaded(String loadedName) {
        return Optional.empty();
    }

    /** Word for features in envelopes: {@code available_extensions}, {@code available_modules}, or null when none. */
    String featuresKey();

    /** Fresh random credentials for one sandbox: an admin pair kept by the plugin and the agent's own pair. */
    Credentials newCredentials(SecretSource secrets);

    /** The container to run. The admin secret may appear in its env; the agent's secret never does. */
    ContainerSpec containerSpec(SpecRequest request);

    /** Ready when the service answers on the admin credential. Polled by {@link Readiness#await}. */
    ReadinessProbe readiness();

    /**
     * What a freshly started container is polled with before its first admin work ({@link #prepareAgent}, a warm-pool
     * claim's session, a seeder's): the service accepts sessions. That first login proves the admin credential, so an
     * engine may answer here without one, more cheaply per poll (Postgres: the server's answer to a startup message;
     * Redis: the container's own log saying it listens). It must send no secret to a port whose listener is not proven
     * the container's own. By default {@link #readiness()}.
     */
    default ReadinessProbe accepting() {
        return readiness();
    }

    /**
     * Creates the agent's least-privileged user (and database / keyspace) through the admin
     * credential, then proves the agent can log in. Called once, after {@link #accepting()} passed.
     */
    void prepareAgent(ProbeTarget target) throws Exception;

    /**
     * {@link #prepareAgent}, handing over the agent login that proved the credential as the sandbox's liveness session
     * (what {@link #openLiveSession} would open), so no second login follows the answer; by default
     * {@link #prepareAgent} and null (the session is opened later). The caller closes what it gets.
     */
    default LiveSession prepareAgentHolding(ProbeTarget target) throws Exception {
        prepareAgent(target);
        return null;
    }

    /** Whether the agent's own credential works right now: the live re-verification of a cached sandbox. */
    ReadinessProbe liveness();

    /**
     * A session for repeated liveness checks of one sandbox: by default each check runs {@link #liveness()}
     * (a new login). Engines may hold one connection opened with the agent's credential and only ask the
     * service to answer on it ({@code SELECT 1}, {@code PING}), which costs a round trip instead of a login.
     * Opened after {@link #prepareAgent}; closed when the sandbox goes.
     */
    default LiveSession openLiveSession(ProbeTarget target) throws Exception {
        ReadinessProbe probe = liveness();
        return new LiveSession() {
            @Override
            public void check() throws Exception {
                probe.check(target);
            }

            @Override
            public void close() {}
        };
    }

    /**
     * Fresh credentials for the agent that will claim a warm-pool container started with {@code pooled}: the admin
     * pair stays (it never leaves the plugin); user, password and database are new, drawn from {@code secrets} (when
     * the container's claim session opens, or at claim without one). One container, one claim, one draw.
     */
    default Credentials claimCredentials(Credentials pooled, SecretSource secrets) {
        Credentials fresh = newCredentials(secrets);
        return new Credentials(
                pooled.adminUser(), pooled.adminPassword(), fresh.user(), fresh.password(), fresh.database());
    }

    /**
     * {@link #prepareAgent} for a claimed warm-pool container: the target carries {@link #claimCredentials},
     * whose user and database do not exist yet, so this also creates the database (or keyspace) the agent owns.
     */
    void prepareClaim(ProbeTarget target) throws Exception;

    /**
     * What a later claim of a ready warm-pool container can open ahead of time, off the agent's path: by default
     * nothing ({@link ClaimSession#claim} runs {@link #prepareClaim}); Postgres makes the claim's role, its password and
     * the login that proves it ahead, so the claim only hands the database over. {@code pooled} carries the pool
     * container's own credentials; {@code claim} the claim's ({@link #claimCredentials}, drawn now).
     */
    default ClaimSession openClaimSession(ProbeTarget pooled, Credentials claim) throws Exception {
        return ClaimSession.holdingNothing(claim, this::prepareClaim);
    }

    /**
     * How this engine seeds warm-pool containers ahead of their claim (the seeded warm pool); empty when it cannot, and
     * a seeded project's sandboxes of this engine then always start cold and are seeded at request time.
     */
    default Optional<PoolSeeding> poolSeeding() {
        return Optional.empty();
    }

    /**
     * How this engine seeds a new sandbox's database (a script, a copy of a source database); empty when it cannot, and
     * a project may then give its sandboxes of this engine no seed.
     */
    default Optional<Seeds> seeds() {
        return Optional.empty();
    }

    /** How a sandbox's database is dumped and restored (templates); empty when it cannot. */
    default Optional<Dumps> dumps() {
        return Optional.empty();
    }

    /**
     * Templates as copies of a stopped server's data directory, restored before a new sandbox's server starts (bound to
     * the major and image that wrote them); empty when the engine keeps dumps only.
     */
    default Optional<PhysicalCopies> physicalCopies() {
        return Optional.empty();
    }

    /** Checkpoint and rewind inside a sandbox, same connection string; empty when it cannot. */
    default Optional<Checkpoints> checkpoints() {
        return Optional.empty();
    }

    /**
     * Data diffs against a checkpoint ({@code diff_data}): records inserted, updated and deleted since it; empty when it
     * takes none. An engine offering this offers {@link #checkpoints} too.
     */
    default Optional<DataDiffs> dataDiffs() {
        return Optional.empty();
    }

    /** Schema snapshots of a sandbox's database ({@code snapshot_schema}, {@code diff_schema}); empty when it takes none. */
    default Optional<SchemaSnapshots> schemaSnapshots() {
        return Optional.empty();
    }

    /**
     * Activates one allowlisted feature inside the running container through an exec (never a bind
     * mount or init script). Idempotent. Throws {@link FeatureUnavailableException} naming the
     * feature and the image when the image does not carry it. The type is the allowlist check: a name
     * off the allowlist cannot reach an engine. Engines without features (an empty {@link #features()})
     * need not implement it: no {@link AllowedFeature} of theirs can exist.
     */
    default void activate(AllowedFeature feature, ContainerExec exec, Credentials credentials, String image)
            throws Exception {
        throw new IllegalStateException(name() + " has no activatable features; '" + feature + "' cannot be allowed");
    }

    /** The env dict an agent exports, e.g. {@code ROBOCO_TEST_DB_HOST}; includes a full URL. */
    Map<String, String> env(Endpoint endpoint, Credentials credentials);
}
