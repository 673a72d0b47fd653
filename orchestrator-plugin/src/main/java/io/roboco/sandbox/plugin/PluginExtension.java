package io.roboco.sandbox.plugin;

/**
 * A feature that starts with a built plugin and ends with it: the janitor, the HTTP API, MCP, the dashboard, metrics.
 * Registered with {@link SandboxPluginBuilder#extension}; {@link #start} gets the plugin's parts once, and what it
 * returns is closed when the plugin closes (before the plugin releases anything), newest first.
 */
public interface PluginExtension {
    /** When an extension starts. */
    enum Stage {
        /** Before re-adoption: front doors that answer while the plugin is still STARTING (requests refused as retryable). */
        FRONT_DOOR,
        /** After re-adoption: background work that must see every re-adopted container (the janitor). */
        BACKGROUND
    }

    default Stage stage() {
        return Stage.BACKGROUND;
    }

    /** Starts the feature; the returned handle ends every thread and resource it started. */
    AutoCloseable start(PluginContext context) throws Exception;
}
