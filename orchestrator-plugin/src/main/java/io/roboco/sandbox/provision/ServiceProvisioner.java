package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.PhysicalCopies;
import io.roboco.sandbox.engine.PoolSeeding;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.VolumeMount;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.io.OutputStream;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns "postgres for agent dev-3 in project shop, with pg_trgm" into one running, ready, isolated
 * container whose agent credential works — or into a {@link ProvisionException} that says why, with
 * nothing left behind. Also activates features on a live service and checks liveness.
 *
 * <p>The front door over one class per concept: {@link ColdStart} (a fresh container to ready),
 * {@link StartDiagnosis} (what went wrong after a start), {@link PoolClaim} (a warm-pool container made an agent's),
 * {@link Activation} (features switched on by exec), {@link Liveness} (does a handed-out sandbox still work), and
 * {@link Containers} (probe targets, execs, removal). Every container it starts is in the {@link ContainerLedger}.
 */
public final class ServiceProvisioner {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);
    /** Agent and project label value of a warm-pool container: owned by no agent. */
    public static final String POOL_OWNER = "-";
    /** Agent label value of the container a template's physical copy is made in. */
    public static final String COPY_MAKER = "template-copy";

    private final ContainerRuntime runtime;
    private final ProvisionSettings settings;
    private final ContainerLedger ledger;
    private final Liveness liveness;
    private final Containers containers;
    private final StartDiagnosis diagnosis;
    private final ColdStart coldStart;
    private final Activation activation;
    private final PoolClaim poolClaim;
    private final Seeding seeding;
    private final PhysicalStart physicalStart;
    private final TemplateVolumes templateVolumes;
    private final SecretSource secrets;
    /** How a seeded pool container gets its seed: the plan's, applied as the seeder ({@link Activation#seed}). */
    private final PoolSeedStep poolSeedStep;

    /** Applies a plan's seed to a seeded pool container as its seeder; a seam for the fakes' tests (same package). */
    interface PoolSeedStep {
        void seed(ServicePlan plan, ProbeTarget seeder, String containerId) throws Exception;
    }

    public ServiceProvisioner(ContainerRuntime runtime, ProvisionSettings settings, SecretSource secrets, Clock clock) {
        this(runtime, settings, secrets, clock, new ContainerLedger(clock));
    }

    /** With the ledger this process keeps its containers in (the manager, the pool and the janitor share it). */
    public ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger) {
        this(runtime, settings, secrets, clock, ledger, System::getenv);
    }

    /**
     * @param environment where a clone seed's source URL is read ({@code sandbox_seed.clone.url_env}); the server's
     *                    process environment in production
     */
    public ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            Function<String, String> environment) {
        this(runtime, settings, secrets, clock, new ContainerLedger(clock), environment);
    }

    /** With both the ledger and the environment clone seeds read their source URLs from. */
    public ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger,
            Function<String, String> environment) {
        this(runtime, settings, secrets, clock, ledger, environment, TemplateStore.none());
    }

    /** With the templates {@code {"template": …}} seeds are read from (none: no template seed can restore). */
    public ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            TemplateStore templates) {
        this(runtime, settings, secrets, clock, new ContainerLedger(clock), System::getenv, templates);
    }

    /** Every collaborator named: the ledger, the clone seeds' environment and the templates. */
    public ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger,
            Function<String, String> environment,
            TemplateStore templates) {
        this(runtime, settings, secrets, clock, ledger, environment, templates, null);
    }

    /** Seeding pool containers with {@code poolSeedStep} instead of the plan's seed (tests with fakes: no database to seed). */
    ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            PoolSeedStep poolSeedStep) {
        this(
                runtime,
                settings,
                secrets,
                clock,
                new ContainerLedger(clock),
                System::getenv,
                TemplateStore.none(),
                poolSeedStep);
    }

    private ServiceProvisioner(
            ContainerRuntime runtime,
            ProvisionSettings settings,
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger,
            Function<String, String> environment,
            TemplateStore templates,
            PoolSeedStep poolSeedStep) {
        this.runtime = runtime;
        this.settings = settings;
        this.secrets = secrets;
        this.ledger = ledger;
        this.liveness = new Liveness(runtime, settings.readyTimeout());
        this.containers = new Containers(
                runtime,
                ledger,
                liveness,
                settings.instanceId(),
                settings.network() instanceof NetworkMode.Named named
                        ? new OwnerNetworks(runtime, named, settings.instanceId(), clock)
                        : null);
        this.diagnosis = new StartDiagnosis(runtime, containers, settings.readyTimeout());
        this.coldStart = new ColdStart(runtime, settings, secrets, clock, ledger, containers, diagnosis);
        this.seeding = new Seeding(environment, templates);
        this.templateVolumes =
                new TemplateVolumes(runtime, templates, settings.instanceId(), settings.limits(), ledger);
        this.templateVolumes.purge();
        this.physicalStart = new PhysicalStart(templates, containers, templateVolumes);
        this.activation = new Activation(containers, seeding);
        this.poolClaim = new PoolClaim(secrets, clock, ledger, containers, activation, liveness, coldStart.claims());
        this.poolSeedStep = poolSeedStep != null ? poolSeedStep : activation::seed;
    }

    /**
     * Unpacks {@code template}'s physical copy into its volume now, where the runtime mounts volumes, so the first
     * sandbox from it does not pay for it; a failure is logged and leaves the stream.
     */
    public void unpackPhysical(TemplateInfo template) {
        physicalStart.unpack(template);
    }

    /** Removes this instance's unpacked template copies (at shutdown; the store's archives stay). */
    public void dropTemplateVolumes() {
        templateVolumes.purge();
    }

    /** The templates this provisioner restores from ({@link io.roboco.sandbox.template.TemplateStore#none()} when it was given none). */
    public TemplateStore templates() {
        return seeding.templates();
    }

    public ProvisionSettings settings() {
        return settings;
    }

    /** The start admission every cold start and pool refill passes ({@link StartQueue}): its numbers for metrics. */
    public StartQueue startQueue() {
        return coldStart.queue();
    }

    public ContainerRuntime runtime() {
        return runtime;
    }

    /** Every container this process owns and why; the provisioner enters each one it starts, and strikes each it removes. */
    public ContainerLedger ledger() {
        return ledger;
    }

    /**
     * Starts, readies and prepares one service on the plan's image; activates the plan's features.
     * The container is in the {@linkplain #ledger() ledger} as in flight until the caller moves it.
     */
    public ServiceInstance provision(ServicePlan plan, String agent, String project) throws ProvisionException {
        return provision(plan, agent, project, SetStartOrder.NONE);
    }

    /**
     * The engine of a set of {@code engines} started together whose container should start first: the clearly slowest
     * from the starts measured so far, or none (all at once). See {@code SetStartOrder}.
     */
    public Optional<String> firstOf(Collection<String> engines) {
        return coldStart.firstOf(engines);
    }

    /**
     * {@link #provision(ServicePlan, String, String)} as one of a set started in order: the set's first engine counts
     * {@code firstStarted} down once the runtime has started its container (or it failed); any other waits for that,
     * before its start turn, at most a second.
     */
    public ServiceInstance provision(
            ServicePlan plan, String agent, String project, CountDownLatch firstStarted, boolean first)
            throws ProvisionException {
        return provision(plan, agent, project, new SetStartOrder(firstStarted, first, SetStartOrder.MAX_WAIT));
    }

    private ServiceInstance provision(ServicePlan plan, String agent, String project, SetStartOrder order)
            throws ProvisionException {
        Engine engine = plan.engine();
        long t0 = System.nanoTime();
        Limits limits = plan.limitsOr(settings.limits());
        Optional<PhysicalStart.Source> copy = physicalStart.usable(plan);
        // From a template's physical copy: the server held back until the copy is written in; else as it comes.
        UnaryOperator<ContainerSpec> specOf = copy.isEmpty() ? UnaryOperator.identity() : copy.get()::held;
        List<VolumeMount> volumes = copy.isEmpty() ? List.of() : copy.get().volumes();
        ColdStart.BeforeReady restore =
                copy.isEmpty() ? null : started -> physicalStart.restore(copy.get(), started, started.credentials());
        ColdStart.Started s = coldStart.startReady(
                engine, plan.image(), limits, agent, project, false, Map.of(), specOf, volumes, restore, order);
        long ready = System.nanoTime();
        LiveSession proving = null; // the agent login that proved the credential, held on for liveness
        try {
            if (copy.isEmpty()) {
                proving = engine.prepareAgentHolding(s.target());
            } else {
                engine.liveness().check(s.target()); // the agent's role and database came with the copy, renamed
            }
            long prepared = System.nanoTime();
            activation.all(engine, s.container().id(), s.credentials(), s.image(), plan.features());
            if (copy.isEmpty()) {
                activation.seed(plan, s.target(), s.container().id());
            }
            ServiceInstance instance = new ServiceInstance(
                    engine.name(),
                    s.image(),
                    s.container().id(),
                    s.container().name(),
                    s.endpoint(),
                    s.credentials(),
                    plan.featureNames(),
                    s.created(),
                    plan.image().major(),
                    limits,
                    false,
                    s.agentEndpoint());
            liveness.hold(engine, instance, proving); // null: one is opened in the background
            proving = null;
            if (copy.isPresent()) {
                log.debug(
                        "{} for agent {}: started from template '{}''s physical copy ({} bytes, {}): copied in and ready"
                                + " {} ms, total {} ms",
                        engine.name(),
                        agent,
                        copy.get().template().name(),
                        copy.get().copy().sizeBytes(),
                        copy.get().volume() != null ? "from its unpacked volume" : "streamed in",
                        ms(s.startedAt(), ready),
                        ms(t0, System.nanoTime()));
            } else if (log.isDebugEnabled()) {
                log.debug(
                        "{} for agent {}: start {} ms, ready {} ms, prepareAgent {} ms, activate {} ms, total {} ms",
                        engine.name(),
                        agent,
                        ms(t0, s.startedAt()),
                        ms(s.startedAt(), ready),
                        ms(ready, prepared),
                        ms(prepared, System.nanoTime()),
                        ms(t0, System.nanoTime()));
            }
            return instance;
        } catch (Exception | Error e) {
            if (proving != null) {
                proving.close();
            }
            throw diagnosis.failed(engine, agent, s, e);
        }
    }

    /**
     * Starts one ready warm-pool container for {@code engine}: labelled {@link SandboxLabels#POOL} with agent and
     * project {@value #POOL_OWNER}, its admin credential only (no agent user exists in it). In the ledger as in
     * flight until its owner moves it.
     */
    public ServiceInstance startPooled(Engine engine) throws ProvisionException {
        return startPooled(engine, settings.choose(engine, null));
    }

    /** {@link #startPooled(Engine)} on the image {@code choice} names: the pool keeps containers per image (per major). */
    public ServiceInstance startPooled(Engine engine, ImageChoice choice) throws ProvisionException {
        long t0 = System.nanoTime();
        ColdStart.Started s = coldStart.startReady(engine, choice, settings.limits(), POOL_OWNER, POOL_OWNER, true);
        log.debug(
                "{} pool container {} ready in {} ms",
                engine.name(),
                s.container().name(),
                ms(t0, System.nanoTime()));
        return new ServiceInstance(
                engine.name(),
                s.image(),
                s.container().id(),
                s.container().name(),
                s.endpoint(),
                s.credentials(),
                Set.of(),
                s.created(),
                choice.major(),
                settings.limits(),
                false,
                s.agentEndpoint());
    }

    /**
     * Starts one ready warm-pool container already seeded with {@code plan}'s seed ({@link Engine#poolSeeding}): the
     * plan's features activated, then the seed applied as a seeder role into a database of its own, then the seeder's
     * login taken away; with the plan's caps (the project's {@code sandbox_limits}, so a large seed fits). Labelled
     * {@link SandboxLabels#POOL} and {@link SandboxLabels#POOL_SEED} {@code seedLabel};
     * its credentials are the seeder's (never an agent's). A failure (the seed's included) removes the container. In
     * the ledger as in flight until its owner moves it.
     */
    public ServiceInstance startSeededPooled(ServicePlan plan, String seedLabel) throws ProvisionException {
        Engine engine = plan.engine();
        PoolSeeding seeding = engine.poolSeeding()
                .orElseThrow(
                        () -> new ProvisionException(engine.name() + " cannot seed warm-pool containers", false, null));
        long t0 = System.nanoTime();
        Optional<PhysicalStart.Source> copy = physicalStart.usable(plan);
        AtomicReference<Credentials> seederOfCopy = new AtomicReference<>();
        ColdStart.Started s = copy.isEmpty()
                ? coldStart.startReady(
                        engine,
                        plan.image(),
                        plan.limitsOr(settings.limits()),
                        POOL_OWNER,
                        POOL_OWNER,
                        true,
                        Map.of(SandboxLabels.POOL_SEED, seedLabel))
                : coldStart.startReady(
                        engine,
                        plan.image(),
                        plan.limitsOr(settings.limits()),
                        POOL_OWNER,
                        POOL_OWNER,
                        true,
                        Map.of(SandboxLabels.POOL_SEED, seedLabel),
                        copy.get()::held,
                        copy.get().volumes(),
                        started -> {
                            // the copy's role becomes the seeder's, handed over at claim as a seed's is; its database
                            // is the one the container was started with
                            Credentials role = seeding.seeder(started.credentials(), secrets);
                            Credentials made = new Credentials(
                                    role.adminUser(),
                                    role.adminPassword(),
                                    role.user(),
                                    role.password(),
                                    started.credentials().database());
                            seederOfCopy.set(made);
                            physicalStart.restore(copy.get(), started, made);
                        },
                        SetStartOrder.NONE);
        String id = s.container().id();
        Credentials seeder = copy.isEmpty() ? seeding.seeder(s.credentials(), secrets) : seederOfCopy.get();
        ProbeTarget target = containers.target(id, s.endpoint(), seeder);
        try {
            if (copy.isEmpty()) {
                seeding.prepareSeeder(target);
            }
            activation.all(engine, id, seeder, s.image(), plan.features());
            if (copy.isEmpty()) {
                poolSeedStep.seed(plan, target, id);
            }
            seeding.retireSeeder(target);
        } catch (Exception | Error e) {
            throw diagnosis.failed(engine, POOL_OWNER, s, e);
        }
        log.debug(
                "{} seeded pool container {} ready in {} ms{}",
                engine.name(),
                s.container().name(),
                ms(t0, System.nanoTime()),
                copy.isPresent() ? " (from template '" + copy.get().template().name() + "''s physical copy)" : "");
        return new ServiceInstance(
                engine.name(),
                s.image(),
                id,
                s.container().name(),
                s.endpoint(),
                seeder,
                plan.featureNames(),
                s.created(),
                plan.image().major(),
                plan.limitsOr(settings.limits()),
                false,
                s.agentEndpoint());
    }

    /**
     * Makes the physical copy of template {@code seed} (its dump, saved already) and writes it to {@code out}: a
     * throwaway container of {@code source}'s image and caps, {@linkplain PhysicalCopies#supervised supervised}, gets an
     * agent, the template's {@code features} and the dump restored as any seeded sandbox does, then its server is stopped
     * cleanly and its data directory archived ({@link PhysicalCopies#capture}). The container is removed whatever
     * happens; it is in the ledger as in flight while it runs.
     */
    public PhysicalCopies.Origin capturePhysical(
            Engine engine,
            ServiceInstance source,
            Seed.Template seed,
            Set<AllowedFeature> features,
            String project,
            OutputStream out)
            throws ProvisionException {
        PhysicalCopies copies = engine.physicalCopies()
                .orElseThrow(() -> new ProvisionException(engine.name() + " keeps no physical copies", false, null));
        ImageChoice image = new ImageChoice(
                engine.name(), "", source.major(), source.image(), engine.imageFeatures(source.image()));
        ServicePlan plan = new ServicePlan(engine, image, features, seed, source.limits());
        ColdStart.Started s = coldStart.startReady(
                engine,
                image,
                plan.limitsOr(settings.limits()),
                COPY_MAKER,
                project,
                false,
                Map.of(),
                copies::supervised,
                List.of(),
                null,
                SetStartOrder.NONE);
        String id = s.container().id();
        try {
            engine.prepareAgent(s.target());
            activation.all(engine, id, s.credentials(), s.image(), features);
            activation.seed(plan, s.target(), id);
            return copies.capture(containers.exec(id), s.target(), out);
        } catch (Exception | Error e) {
            throw diagnosis.failed(engine, COPY_MAKER, s, e);
        } finally {
            containers.removeQuietly(id);
        }
    }

    /**
     * {@code instance} as read back after a restart (its stored endpoint is where the plugin reaches it), told where its
     * agent does: in network mode the container's name and the service's own port on its owner's network.
     */
    public ServiceInstance reachable(Engine engine, ServiceInstance instance) {
        if (settings.network() instanceof NetworkMode.Named) {
            return instance.withAgentEndpoint(new Endpoint(instance.containerName(), engine.defaultPort()));
        }
        return instance;
    }

    /**
     * A ready pool container's claim session, opened off the agent's path ({@link Engine#openClaimSession});
     * null when it cannot be opened (the claim then opens what it needs itself).
     */
    public ClaimSession openClaimSession(Engine engine, ServiceInstance pooled) {
        return poolClaim.openSession(engine, pooled, false);
    }

    /** {@link #openClaimSession} for a seeded pool container ({@link #startSeededPooled}). */
    public ClaimSession openSeededClaimSession(Engine engine, ServiceInstance seeded) {
        return poolClaim.openSession(engine, seeded, true);
    }

    /**
     * Hands a ready warm-pool container to {@code agent}: the credentials the held claim {@code session} was opened with
     * (drawn then, {@link Engine#claimCredentials}; without a session, drawn now), the agent's user and database made
     * ({@link Engine#prepareClaim}, or ahead by the session; closed here), the plan's features activated. On failure the container is removed. In the ledger as
     * claimed until its owner moves it.
     */
    public ServiceInstance claim(ServicePlan plan, ServiceInstance pooled, ClaimSession session, String agent)
            throws ProvisionException {
        return poolClaim.claim(plan, pooled, session, agent, false);
    }

    /**
     * {@link #claim} of a seeded pool container ({@link #startSeededPooled}): the agent's role made now, given the
     * seeded database and every seeded object, the seeder dropped ({@link PoolSeeding}); the plan's features the
     * container lacks activated; the seed not applied again.
     */
    public ServiceInstance claimSeeded(ServicePlan plan, ServiceInstance seeded, ClaimSession session, String agent)
            throws ProvisionException {
        return poolClaim.claim(plan, seeded, session, agent, true);
    }

    /** Activates the plan's features a live service lacks, without a teardown; returns the updated instance. */
    public ServiceInstance activate(ServicePlan plan, ServiceInstance instance) throws ProvisionException {
        return activation.missing(plan, instance);
    }

    /**
     * The container runs and the service answers on a session the agent's own credential opened (held since
     * provisioning; see {@link Engine#openLiveSession}); a session that proves the container runs
     * ({@link LiveSession#provesRunning}) saves the runtime inspect. One check, no retries.
     */
    public boolean isLive(Engine engine, ServiceInstance instance) {
        return liveness.isLive(engine, instance);
    }

    /**
     * An idle warm-pool container found after a restart still serves: it runs, and one readiness probe passes on its
     * admin credential (a pool container has no agent credential to check). One check, no retries.
     */
    public boolean poolContainerAnswers(Engine engine, ServiceInstance pooled) {
        try {
            if (!runtime.isRunning(pooled.containerId())) {
                return false;
            }
            engine.readiness().check(containers.target(pooled.containerId(), pooled.endpoint(), pooled.credentials()));
            return true;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.info(
                    "{} pool container {} does not answer: {}",
                    pooled.service(),
                    pooled.containerName(),
                    Redaction.of(String.valueOf(e.getMessage()), pooled.credentials()));
            return false;
        }
    }

    /**
     * Forgets the held liveness session of {@code instance} (a checkpoint or rewind closed it on purpose); the next
     * liveness check opens a new one instead of failing on the closed one.
     */
    public void resetLiveSession(ServiceInstance instance) {
        liveness.drop(instance.containerId());
    }

    /** An exec into the instance's container through the runtime, streams included (a template's dump). */
    public ContainerExec execIn(ServiceInstance instance) {
        return containers.exec(instance.containerId());
    }

    /** Removes the container (closing its live session); never throws (removal of a missing container is success). */
    public void removeQuietly(String containerId) {
        containers.removeQuietly(containerId);
    }

    private static long ms(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1_000_000;
    }
}
