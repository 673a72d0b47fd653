package io.roboco.sandbox.plugin;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.SettingsStore;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

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
 *       readiness timeout 30 s; the orchestrator always running.</li>
 * </ul>
 *
 * <p>Closing the plugin releases every live sandbox (their credentials exist only in this process), then closes
 * the runtime and the store if the builder made them; what the caller passed in stays the caller's to close.
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
    private Boolean featureFlag;
    private OrchestratorHandle handle = OrchestratorHandle.running();
    private Clock clock = Clock.systemUTC();
    private SecretSource secrets = SecretSource.secure();

    SandboxPluginBuilder() {
    }

    /**
     * Required: this orchestrator's stable id, on the {@code roboco.sandbox.instance} label of every container it
     * starts (a janitor uses it to tell its own orphans from other orchestrators'). 1-64 letters, digits, {@code . _ -}.
     */
    private io.roboco.sandbox.template.TemplateStore templates = io.roboco.sandbox.template.TemplateStore.none();

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
            throw new IllegalArgumentException("image for engine '" + engine + "' is blank; name an image, e.g. postgres:16-alpine");
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
    public SandboxPluginBuilder templateDirectory(java.nio.file.Path directory) {
        return templateDirectory(directory, io.roboco.sandbox.template.TemplateLimits.defaults());
    }

    /** {@link #templateDirectory(java.nio.file.Path)} with each project's templates capped by {@code limits}. */
    public SandboxPluginBuilder templateDirectory(java.nio.file.Path directory, io.roboco.sandbox.template.TemplateLimits limits) {
        return templates(new io.roboco.sandbox.template.DirectoryTemplateStore(Objects.requireNonNull(directory, "directory"),
                Objects.requireNonNull(limits, "limits")));
    }

    /** Keeps saved templates in {@code store} (an embedding orchestrator's own). */
    public SandboxPluginBuilder templates(io.roboco.sandbox.template.TemplateStore store) {
        this.templates = Objects.requireNonNull(store, "templates");
        return this;
    }

    /** Where passwords and identifiers come from (default: {@link SecretSource#secure()}). */
    public SandboxPluginBuilder secrets(SecretSource source) {
        this.secrets = Objects.requireNonNull(source, "secrets");
        return this;
    }

    /**
     * The plugin. Refuses a missing or malformed instance id and an image for an engine the registry does not know,
     * each with a sentence saying what to change, before anything is connected.
     */
    public SandboxPlugin build() {
        if (instanceId == null || instanceId.isBlank()) {
            throw new IllegalStateException("SandboxPlugin.builder() needs instanceId(...): a stable id of this orchestrator,"
                    + " put on every container it starts, e.g. instanceId(\"orchestrator-1\")");
        }
        images.keySet().forEach(engines::require);
        ProvisionSettings settings = ProvisionSettings.defaults(instanceId).withImages(images).withNetwork(network);
        if (readyTimeout != null) {
            settings = settings.withReadyTimeout(readyTimeout);
        }
        SettingsStore settingsStore = store != null ? store : new InMemorySettingsStore();
        ContainerRuntime containerRuntime = runtime != null ? runtime : DockerContainerRuntime.connect();
        boolean flag = featureFlag != null ? featureFlag
                : settingsStore.storedFlag(FlagStore.SANDBOX_DB_ENABLED).orElse(false);
        ServiceProvisioner provisioner = new ServiceProvisioner(containerRuntime, settings, secrets, clock).useTemplates(templates);
        SandboxPlugin plugin = new SandboxPlugin(engines, new SandboxManager(engines, provisioner, clock), settingsStore,
                flag, handle, clock);
        plugin.releaseOnClose(CLOSE_VERB);
        if (runtime == null) {
            plugin.closeAlso(containerRuntime);
        }
        if (store == null) {
            plugin.closeAlso(settingsStore);
        }
        return plugin;
    }
}
