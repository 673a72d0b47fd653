package io.roboco.sandbox.server.config;

import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.settings.ByteSize;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateLimits;
import java.util.Map;
import java.util.Objects;

/**
 * What agents' data tools may keep in the state directory, so no agent fills it: per project at most
 * {@code ROBOCO_SANDBOX_TEMPLATES_PER_PROJECT} templates (20), each at most {@code ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE}
 * (256m), all of them together at most {@code ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE} (1g), a physical copy counted with
 * its dump. Checkpoints live inside the sandbox (its data size limit), not here.
 *
 * @param templates      the caps of one project's templates
 * @param physicalCopies whether a saved template also keeps a physical copy (a stopped server's data directory) that new
 *                       sandboxes on the same image start from ({@code ROBOCO_SANDBOX_TEMPLATE_PHYSICAL}, default true)
 * @param physicalMinDump the smallest dump, in bytes, that gets one ({@code ROBOCO_SANDBOX_TEMPLATE_PHYSICAL_MIN_DUMP},
 *                       default 4m; {@code 0}: every template)
 */
public record DataSettings(TemplateLimits templates, boolean physicalCopies, long physicalMinDump) {
    static final String PHYSICAL = "ROBOCO_SANDBOX_TEMPLATE_PHYSICAL";
    static final String PHYSICAL_MIN_DUMP = "ROBOCO_SANDBOX_TEMPLATE_PHYSICAL_MIN_DUMP";

    public DataSettings {
        Objects.requireNonNull(templates, "templates");
        if (physicalMinDump < 0) {
            throw new IllegalArgumentException("the smallest dump with a physical copy cannot be negative");
        }
    }

    /** {@code templates}, with physical copies kept for dumps of 4 MB or more. */
    public DataSettings(TemplateLimits templates) {
        this(templates, true, DirectoryTemplateStore.DEFAULT_PHYSICAL_MIN_DUMP);
    }

    public static DataSettings defaults() {
        return new DataSettings(TemplateLimits.defaults());
    }

    static DataSettings fromEnv(Map<String, String> env) {
        TemplateLimits d = TemplateLimits.defaults();
        return new DataSettings(
                new TemplateLimits(
                        count(env, "ROBOCO_SANDBOX_TEMPLATES_PER_PROJECT", d.perProject()),
                        size(env, "ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE", d.maxBytes()),
                        size(env, "ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE", d.projectBytes())),
                EnvValues.bool(
                        env,
                        PHYSICAL,
                        true,
                        "true (default: templates keep a physical copy beside the dump) or false (dumps only)"),
                EnvValues.size(env, PHYSICAL_MIN_DUMP, DirectoryTemplateStore.DEFAULT_PHYSICAL_MIN_DUMP));
    }

    private static int count(Map<String, String> env, String key, int fallback) {
        String raw = EnvValues.value(env, key);
        if (raw == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(raw);
            if (n >= 1 && n <= 10_000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new ConfigException(
                key + "='" + Names.printable(raw) + "' must be a whole number 1-10000" + " (default " + fallback + ")");
    }

    private static long size(Map<String, String> env, String key, long fallback) {
        long bytes = EnvValues.size(env, key, fallback);
        if (bytes < 1) {
            throw new ConfigException(key + "=" + EnvValues.value(env, key) + " must be at least 1 byte (default "
                    + ByteSize.format(fallback) + ")");
        }
        return bytes;
    }
}
