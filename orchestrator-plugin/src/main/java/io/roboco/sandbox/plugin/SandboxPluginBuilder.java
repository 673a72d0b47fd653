package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.lifecycle.Bookkeeping;
import io.roboco.sandbox.lifecycle.Capacity;
import io.roboco.sandbox.lifecycle.Lifetimes;
import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.LiveSandboxes;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.readopt.Restarts;
import io.roboco.sandbox.readopt.SealingAdmission;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateLimits;
import io.roboco.sandbox.template.TemplateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front door for a JVM orchestrator that embeds the plugin: {@code SandboxPlugin.builder().instanceId("orch-1").build()}.
 * Everything but the instance id has a default:
 *
 * <ul>
 *   <li>runtime: Docker, from {@code DOCKER_HOST} or the local socket ({@link DockerContainerRuntime#connect()});</li>
 *   <li>engines: {@link EngineRegistry#defaults()} (postgres, redis, mongo), each on its production image;</li>
 *   <li>store: an {@link InMemorySettingsStore} (projects, agents, flag and audit die with the process); pass any
 *       {@link SettingsStore} to keep them, e.g. the server module's {@code JdbcSettingsStore};</li>
 *   <li>feature flag: the value stored in the store, else off; network: host mode (127.0.0.1, a free port);
 *       readiness timeout 30 s; the orchestrator always running;</li>
 *   <li>sandbox records: TTL 4 h (at most 24 h), 3 live sandboxes per owner, capacity derived from the Docker host's
 *       memory; no warm pool; re-adoption off; no templates; no events; no extensions.</li>
 * </ul>
 *
 * <p>The standalone server is this builder plus its extensions (HTTP API, MCP, dashboard, janitor, metrics): an
 * embedder gets the same product. {@link #build()} wires, starts the front-door extensions, re-adopts (when on), starts
 * the background extensions and the warm pool, and answers a RUNNING plugin.
 *
 * <p>Closing the plugin closes the extensions, then releases every live sandbox (their credentials exist only in this
 * process) unless re-adoption keeps them, then closes the runtime and the store if the builder made them; what the
 * caller passed in stays the caller's to close.
 */
public final class SandboxPluginBuilder {
    /** The verb recorded in the audit trail for sandboxes released because the plugin closed. */
    public static final String CLOSE_VERB = "plugin_close";

    private String instanceId;
    private SettingsStore store;
    private ContainerRuntime runtime;
    private EngineRegistry engines = EngineRegistry.defaults();
    private final Map<String, String> images = new TreeMap<>();
    private NetworkMode network = NetworkMode.host();
    private Duration readyTimeout;
    private Integer concurrentStarts;
    private Integer startQueuePerOwner;
    private Duration startQueueWait;
    private Boolean featureFlag;
    private OrchestratorHandle handle = OrchestratorHandle.running();
    private Clock clock = Clock.systemUTC();
    private SecretSource secrets = SecretSource.secure();
    private TemplateStore templates = TemplateStore.none();
    private final Map<String, Map<String, String>> majorImages = new TreeMap<>();
    private Limits maxLimits;
    private PoolSizes pool = PoolSizes.none();
    private Lifetimes lifetimes = Lifetimes.defaults();
    private int maxPerOwner = DEFAULT_MAX_PER_OWNER;
    private Integer maxContainers;
    private Path readoptionKey;
    private SandboxEvents events = SandboxEvents.none();
    private final List<PluginExtension> extensions = new ArrayList<>();
    private String closeVerb = CLOSE_VERB;
    private boolean announceStop;

    /** Live sandboxes per owner unless {@link #maxSandboxesPerOwner} says otherwise. */
    public static final int DEFAULT_MAX_PER_OWNER = 3;

    private static final Logger log = LoggerFactory.getLogger(SandboxPluginBuilder.class);

    SandboxPluginBuilder() {}

    /**
     * Required: this orchestrator's stable id, on the {@code roboco.sandbox.instance} label of every container it
     * starts (a janitor uses it to tell its own orphans from other orchestrators'). 1-64 letters, digits, {@code . _ -}.
     */
    public SandboxPluginBuilder instanceId(String id) {
        this.instanceId = id;
        return this;
    }

    /** Where projects, agents, the stored flag and the audit trail live. Default: in memory. */
    public SandboxPluginBuilder store(SettingsStore settingsStore) {
        this.store = Objects.requireNonNull(settingsStore, "store");
        return this;
    }

    /** How containers run. Default: Docker from the environment. */
    public SandboxPluginBuilder runtime(ContainerRuntime containerRuntime) {
        this.runtime = Objects.requireNonNull(containerRuntime, "runtime");
        return this;
    }

    /** The engines sandboxes may be made of. Default: postgres, redis, mongo. */
    public SandboxPluginBuilder engines(EngineRegistry registry) {
        this.engines = Objects.requireNonNull(registry, "engines");
        return this;
    }

    /** The image one engine runs instead of its production default (e.g. {@code "postgres", "postgres:17-alpine"}). */
    public SandboxPluginBuilder image(String engine, String image) {
        if (image == null || image.isBlank()) {
            throw new IllegalArgumentException(
                    "image for engine '" + engine + "' is blank; name an image, e.g. postgres:16-alpine");
        }
        images.put(Objects.requireNonNull(engine, "engine"), image.trim());
        return this;
    }

    /** {@link #image} for each entry: engine name to image. */
    public SandboxPluginBuilder images(Map<String, String> byEngine) {
        byEngine.forEach(this::image);
        return this;
    }

    /** Host mode (default; services on 127.0.0.1) or {@code NetworkMode.named("agents")}: reached by container name. */
    public SandboxPluginBuilder network(NetworkMode mode) {
        this.network = Objects.requireNonNull(mode, "network");
        return this;
    }

    /** Bound on waiting for one service to become ready (default 30 s). */
    public SandboxPluginBuilder readyTimeout(Duration timeout) {
        this.readyTimeout = Objects.requireNonNull(timeout, "readyTimeout");
        return this;
    }

    /**
     * Containers starting and becoming ready at once (default the host's cores plus one, at least 3); more wait their turn
     * in a queue, first come first served ({@link io.roboco.sandbox.provision.StartQueue}).
     */
    public SandboxPluginBuilder concurrentStarts(int starts) {
        this.concurrentStarts = starts;
        return this;
    }

    /**
     * The start queue's bounds: starts one owner may have waiting (default 8), and how long a start may wait for its
     * turn (default 120 s) before it fails retryably with its position and an estimate.
     */
    public SandboxPluginBuilder startQueue(int perOwner, Duration wait) {
        this.startQueuePerOwner = perOwner;
        this.startQueueWait = Objects.requireNonNull(wait, "wait");
        return this;
    }

    /** The feature flag's effective value, overriding the stored one (as the server's environment variable does). */
    public SandboxPluginBuilder featureFlag(boolean enabled) {
        this.featureFlag = enabled;
        return this;
    }

    /** Whether the host orchestrator can serve verbs right now; while it cannot, requests are refused as retryable. */
    public SandboxPluginBuilder handle(OrchestratorHandle orchestrator) {
        this.handle = Objects.requireNonNull(orchestrator, "handle");
        return this;
    }

    public SandboxPluginBuilder clock(Clock time) {
        this.clock = Objects.requireNonNull(time, "clock");
        return this;
    }

    /**
     * Keeps saved templates as files in {@code directory} ({@code <name>.sql} + {@code <name>.json}); without it the
     * plugin keeps none (a template seed is refused naming none known).
     */
    public SandboxPluginBuilder templateDirectory(Path directory) {
        return templateDirectory(directory, TemplateLimits.defaults());
    }

    /** {@link #templateDirectory(java.nio.file.Path)} with each project's templates capped by {@code limits}. */
    public SandboxPluginBuilder templateDirectory(Path directory, TemplateLimits limits) {
        return templates(new DirectoryTemplateStore(
                Objects.requireNonNull(directory, "directory"), Objects.requireNonNull(limits, "limits")));
    }

    /** Keeps saved templates in {@code store} (an embedding orchestrator's own). */
    public SandboxPluginBuilder templates(TemplateStore store) {
        this.templates = Objects.requireNonNull(store, "templates");
        return this;
    }

    /** Where passwords and identifiers come from (default: {@link SecretSource#secure()}). */
    public SandboxPluginBuilder secrets(SecretSource source) {
        this.secrets = Objects.requireNonNull(source, "secrets");
        return this;
    }

    /** Images per Postgres-style major, engine to major to image (a project's {@code sandbox_major} picks one). */
    public SandboxPluginBuilder majorImages(Map<String, Map<String, String>> byEngine) {
        byEngine.forEach(
                (engine, majors) -> majorImages.put(Objects.requireNonNull(engine, "engine"), Map.copyOf(majors)));
        return this;
    }

    /** The most a project's {@code sandbox_limits} may set per container (default: the per-container defaults). */
    public SandboxPluginBuilder maxLimits(Limits maximums) {
        this.maxLimits = Objects.requireNonNull(maximums, "maxLimits");
        return this;
    }

    /** Ready containers kept per pool key ({@code postgres}, {@code postgres@17}) and per seeded project. Default: none. */
    public SandboxPluginBuilder warmPool(PoolSizes sizes) {
        this.pool = Objects.requireNonNull(sizes, "warmPool");
        return this;
    }

    /** A new sandbox's TTL (a verb set's slides to it on use) and the most any sandbox lives. Default 4 h and 24 h. */
    public SandboxPluginBuilder lifetimes(Duration ttlDefault, Duration ttlMax) {
        this.lifetimes = new Lifetimes(ttlDefault, ttlMax);
        return this;
    }

    /** Live sandboxes one owner may hold (default {@value #DEFAULT_MAX_PER_OWNER}). */
    public SandboxPluginBuilder maxSandboxesPerOwner(int max) {
        if (max < 1) {
            throw new IllegalArgumentException(
                    "maxSandboxesPerOwner(" + max + "): an owner must be allowed at least 1 sandbox");
        }
        this.maxPerOwner = max;
        return this;
    }

    /**
     * Sandbox containers this plugin keeps at once, warm pool included. Default: derived from the Docker host's memory
     * (3/4 of it over the per-container memory limit), {@value #FALLBACK_CAPACITY} when the runtime does not say.
     */
    public SandboxPluginBuilder maxContainers(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxContainers(" + max + "): allow at least 1 container");
        }
        this.maxContainers = max;
        return this;
    }

    /**
     * Re-adoption on: handed-out credentials are sealed (AES-256-GCM) under the key in {@code keyFile} (generated there,
     * mode 0600, when absent), closing keeps live sandboxes, and the next build with the same instance
     * id and store takes them back (the idle warm pool is removed either way). Default: off (closing releases everything).
     */
    public SandboxPluginBuilder readoption(Path keyFile) {
        this.readoptionKey = Objects.requireNonNull(keyFile, "keyFile");
        return this;
    }

    /** Told of every decision, provisioning path and janitor removal (e.g. metrics). Default: nobody. */
    public SandboxPluginBuilder events(SandboxEvents listener) {
        this.events = Objects.requireNonNull(listener, "events");
        return this;
    }

    /** A feature started with the plugin and closed with it (janitor, HTTP API, MCP, dashboard); started in order. */
    public SandboxPluginBuilder extension(PluginExtension extension) {
        extensions.add(Objects.requireNonNull(extension, "extension"));
        return this;
    }

    /** The verb closing releases live sandboxes under, in the audit trail (default {@value #CLOSE_VERB}). */
    public SandboxPluginBuilder closeVerb(String verb) {
        this.closeVerb = Objects.requireNonNull(verb, "closeVerb");
        return this;
    }

    /** Closing logs what it keeps or releases (a server's stop). Default: quiet. */
    public SandboxPluginBuilder announceStop() {
        this.announceStop = true;
        return this;
    }

    /** Capacity when none is set and the runtime does not say how much memory its host has. */
    public static final int FALLBACK_CAPACITY = 32;

    /**
     * The plugin. Refuses a missing or malformed instance id and an image for an engine the registry does not know,
     * each with a sentence saying what to change, before anything is connected.
     */
    public SandboxPlugin build() {
        if (instanceId == null || instanceId.isBlank()) {
            throw new IllegalStateException(
                    "SandboxPlugin.builder() needs instanceId(...): a stable id of this orchestrator,"
                            + " put on every container it starts, e.g. instanceId(\"orchestrator-1\")");
        }
        images.keySet().forEach(engines::require);
        majorImages.keySet().forEach(engines::require);
        pool.sizes().keySet().forEach(key -> engines.require(PoolSizes.engineOf(key)));
        Instant started = clock.instant();
        ProvisionSettings settings = provisionSettings();
        SettingsStore settingsStore = store != null ? store : new InMemorySettingsStore();
        ContainerRuntime containerRuntime = runtime != null ? runtime : DockerContainerRuntime.connect();
        List<AutoCloseable> owned = new ArrayList<>();
        if (runtime == null) {
            owned.add(containerRuntime);
        }
        if (store == null) {
            owned.add(settingsStore);
        }
        boolean flag = featureFlag != null
                ? featureFlag
                : settingsStore.storedFlag(FlagStore.SANDBOX_DB_ENABLED).orElse(false);
        ServiceProvisioner provisioner = new ServiceProvisioner(containerRuntime, settings, secrets, clock, templates);
        // Every container this plugin keeps (in flight, pending, pooled, claimed, held, recorded) counts.
        Capacity capacity = new Capacity(
                capacityOf(containerRuntime, settings),
                () -> provisioner.ledger().ownedIds().size());
        LiveSandboxes live = new LiveSandboxes();
        SandboxBook book = Bookkeeping.open(
                settingsStore, instanceId, lifetimes, maxPerOwner, capacity, clock, provisioner.ledger(), live);
        Restarts restarts = Restarts.prepare(readoptionKey, settingsStore, instanceId, book);
        WarmPool warmPool = pool.enabled()
                ? new WarmPool(
                        engines,
                        provisioner,
                        pool,
                        () -> capacity.tryReserve(1).map(hold -> (Runnable) hold),
                        restarts.poolJournal())
                : null;
        Admission admission = restarts.keeping() ? new SealingAdmission(book, restarts.vault()) : book;
        SandboxManager manager = live.manager(engines, provisioner, clock, warmPool, admission);
        PluginState state = new PluginState(handle);
        List<AutoCloseable> startedExtensions = new CopyOnWriteArrayList<>();
        SandboxPlugin plugin = new SandboxPlugin(
                engines,
                manager,
                settingsStore,
                flag,
                state,
                clock,
                new PluginWiring(
                        book,
                        restarts.vault(),
                        events,
                        closeVerb,
                        restarts.keeping(),
                        announceStop,
                        () -> state.moveTo(OrchestratorHandle.State.STOPPING),
                        startedExtensions,
                        owned));
        PluginContext context = new PluginContext(
                plugin,
                instanceId,
                clock,
                containerRuntime,
                settingsStore,
                engines,
                settings,
                pool,
                capacity,
                provisioner.ledger(),
                plugin.sandboxes().orElseThrow(),
                events,
                state,
                started);
        try {
            startExtensions(PluginExtension.Stage.FRONT_DOOR, context, startedExtensions);
            // Still STARTING: requests are refused as retryable until every record is re-adopted or closed.
            restarts.readopt(engines, provisioner, manager, warmPool, clock, plugin.audit());
            startExtensions(PluginExtension.Stage.BACKGROUND, context, startedExtensions);
            if (warmPool != null) {
                warmPool.start();
                int seeded = pool.seeded() > 0 ? primeSeededPools(plugin, settingsStore) : 0;
                log.info(
                        "warm pool filling in the background: {} ready container(s) per engine{}",
                        pool.sizes(),
                        pool.seeded() > 0
                                ? ", " + pool.seeded() + " per seeded project (" + seeded + " seeded pool(s) now)"
                                : "");
            }
        } catch (RuntimeException | Error e) {
            plugin.close();
            throw e;
        }
        state.moveTo(OrchestratorHandle.State.RUNNING);
        return plugin;
    }

    private ProvisionSettings provisionSettings() {
        ProvisionSettings settings = ProvisionSettings.defaults(instanceId)
                .withImages(images)
                .withMajorImages(majorImages)
                .withNetwork(network);
        if (maxLimits != null) {
            settings = settings.withMaxLimits(maxLimits);
        }
        if (concurrentStarts != null) {
            settings = settings.withConcurrentStarts(concurrentStarts);
        }
        if (startQueueWait != null) {
            settings = settings.withStartQueue(startQueuePerOwner, startQueueWait);
        }
        return readyTimeout == null ? settings : settings.withReadyTimeout(readyTimeout);
    }

    private void startExtensions(PluginExtension.Stage stage, PluginContext context, List<AutoCloseable> started) {
        for (PluginExtension extension : extensions) {
            if (extension.stage() != stage) {
                continue;
            }
            try {
                started.add(extension.start(context));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(
                        "extension " + extension.getClass().getSimpleName() + " did not start: " + e.getMessage(), e);
            }
        }
    }

    /** The set capacity, or one derived from the Docker host's memory: 3/4 of it over the per-container memory limit. */
    private int capacityOf(ContainerRuntime containerRuntime, ProvisionSettings settings) {
        if (maxContainers != null) {
            log.info("capacity: {} sandbox containers (ROBOCO_SANDBOX_MAX_CONTAINERS)", maxContainers);
            return maxContainers;
        }
        long perContainer = settings.limits().memoryBytes();
        long memory;
        try {
            memory = containerRuntime.info().memoryBytes();
        } catch (RuntimeException e) {
            memory = 0;
        }
        if (memory <= 0 || perContainer <= 0) {
            log.warn(
                    "capacity: the container runtime did not say how much memory its host has; allowing {} sandbox containers"
                            + " (set ROBOCO_SANDBOX_MAX_CONTAINERS to choose)",
                    FALLBACK_CAPACITY);
            return FALLBACK_CAPACITY;
        }
        int derived = (int) Math.max(1, Math.min(100_000, memory / 4 * 3 / perContainer));
        log.info(
                "capacity: {} sandbox containers, derived from the Docker host's memory ({} MiB x 3/4 / {} MiB per container);"
                        + " set ROBOCO_SANDBOX_MAX_CONTAINERS to choose",
                derived,
                memory >> 20,
                perContainer >> 20);
        return derived;
    }

    /** Every saved project's seeded pools begin to fill at start (re-adopted ones learn their recipe); a store fault primes none. */
    private static int primeSeededPools(SandboxPlugin plugin, SettingsStore store) {
        try {
            List<Project> projects = store.allProjects();
            plugin.manager()
                    .pool()
                    .ifPresent(p -> p.retainSeededProjects( // re-adopted for a deleted project
                            projects.stream().map(Project::id).collect(Collectors.toSet())));
            return projects.stream().mapToInt(plugin::primeSeededPools).sum();
        } catch (RuntimeException e) {
            log.warn(
                    "seeded warm pools not primed at start ({}); each is made at its project's first request",
                    e.getMessage());
            return 0;
        }
    }
}
