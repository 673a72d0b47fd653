package io.roboco.sandbox.server.config;

import io.roboco.sandbox.runtime.LogCap;
import io.roboco.sandbox.settings.ByteSize;
import java.util.Map;

/**
 * The cap on every sandbox container's log on the Docker host (see {@link LogCap}): whatever an engine, or an agent
 * through it, writes to stdout/stderr, the host keeps at most {@code max size × max files} of it per container.
 *
 * <ul>
 *   <li>{@code ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE} (10m): one log file's size before rotation (at least 64k);</li>
 *   <li>{@code ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES} (2): files kept per container (1-100).</li>
 * </ul>
 */
final class ContainerLogSettings {
    private ContainerLogSettings() {}

    static LogCap fromEnv(Map<String, String> env) {
        LogCap d = LogCap.defaults();
        long size = EnvValues.size(env, "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE", d.maxFileBytes());
        int files = d.maxFiles();
        String rawFiles = EnvValues.value(env, "ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES");
        if (rawFiles != null) {
            try {
                files = Integer.parseInt(rawFiles);
            } catch (NumberFormatException e) {
                throw new ConfigException("ROBOCO_SANDBOX_CONTAINER_LOG_MAX_FILES='" + rawFiles
                        + "' is not a whole number; use 1-100" + " (default " + d.maxFiles() + ")");
            }
        }
        try {
            return new LogCap(size, files);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("ROBOCO_SANDBOX_CONTAINER_LOG_MAX_SIZE / _MAX_FILES: " + e.getMessage()
                    + " (defaults " + ByteSize.format(d.maxFileBytes()) + ", " + d.maxFiles() + ")");
        }
    }
}
