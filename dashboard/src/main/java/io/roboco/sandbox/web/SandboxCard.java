package io.roboco.sandbox.web;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.settings.ByteSize;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The project settings page's Sandbox card, generated from the engine registry: one checkbox per
 * registered engine and, under an engine with an allowlist, one per extension or module. A new
 * engine in the registry appears here with no change to the page.
 */
public record SandboxCard(List<EngineOption> engines, Lifecycle lifecycle, LimitHints hints) {

    /**
     * The card's lifecycle fields as the form shows them (empty: the server's setting).
     *
     * @param serverTtlDefault the server's TTL default and max, shown as what an empty field means
     */
    public record Lifecycle(
            String ttlDefault,
            String ttlMax,
            String maxLive,
            String serverTtlDefault,
            String serverTtlMax,
            int serverMaxPerOwner) {}

    public SandboxCard(List<EngineOption> engines) {
        this(
                engines,
                new Lifecycle("", "", "", "", "", 0),
                LimitHints.of(Limits.sandboxDefaults(), Limits.operatorMaximums()));
    }

    /** The same card with its lifecycle fields filled. */
    public SandboxCard withLifecycle(Lifecycle next) {
        return new SandboxCard(engines, next, hints);
    }

    /**
     * @param majors  the majors a project may pick (empty: the engine offers no choice)
     * @param version the picked major, or empty for the server's configured image
     * @param seed    how the project's seed for this engine reads ({@code sql (120 bytes)}, {@code clone of $SHOP_DB_URL …}), or empty
     * @param limits  the limits as entered: {@code memory}, {@code data_size}, {@code cpus} (absent: the default)
     */
    public record EngineOption(
            String name,
            String displayName,
            boolean checked,
            String featuresLabel,
            List<FeatureOption> features,
            List<String> majors,
            String version,
            String seed,
            Map<String, String> limits) {
        public String limit(String field) {
            return limits.getOrDefault(field, "");
        }
    }

    /** What the limit fields show when empty (the server's defaults) and the operator's maximums. */
    public record LimitHints(
            String memory, String dataSize, String cpus, String maxMemory, String maxDataSize, String maxCpus) {
        static LimitHints of(Limits defaults, Limits maximums) {
            return new LimitHints(
                    ByteSize.format(defaults.memoryBytes()),
                    ByteSize.format(defaults.tmpfsBytes()),
                    ByteSize.formatCpus(defaults.nanoCpus()),
                    ByteSize.format(maximums.memoryBytes()),
                    ByteSize.format(maximums.tmpfsBytes()),
                    ByteSize.formatCpus(maximums.nanoCpus()));
        }
    }

    public record FeatureOption(String name, boolean checked) {}

    /** The card with {@code services} and {@code features} (engine → names) checked, on no picked major. */
    static SandboxCard of(
            EngineRegistry registry, Collection<String> services, Map<String, ? extends Collection<String>> features) {
        return of(registry, services, features, Map.of(), Map.of());
    }

    static SandboxCard of(
            EngineRegistry registry,
            Collection<String> services,
            Map<String, ? extends Collection<String>> features,
            Map<String, String> versions,
            Map<String, String> seeds) {
        return of(
                registry,
                services,
                features,
                versions,
                seeds,
                Map.of(),
                LimitHints.of(Limits.sandboxDefaults(), Limits.operatorMaximums()));
    }

    /** The card with {@code services} and {@code features} checked, {@code versions} picked, seeds and limits shown. */
    static SandboxCard of(
            EngineRegistry registry,
            Collection<String> services,
            Map<String, ? extends Collection<String>> features,
            Map<String, String> versions,
            Map<String, String> seeds,
            Map<String, Map<String, String>> limits,
            LimitHints hints) {
        List<EngineOption> engines = new ArrayList<>();
        for (Engine engine : registry.all()) {
            Collection<String> chosen = features.containsKey(engine.name()) ? features.get(engine.name()) : List.of();
            List<FeatureOption> options = new ArrayList<>();
            for (String feature : new TreeSet<>(engine.features())) {
                options.add(new FeatureOption(feature, chosen.contains(feature)));
            }
            engines.add(new EngineOption(
                    engine.name(),
                    engine.displayName(),
                    services.contains(engine.name()),
                    label(engine.featuresKey()),
                    options,
                    engine.majors(),
                    versions.getOrDefault(engine.name(), ""),
                    seeds.getOrDefault(engine.name(), ""),
                    limits.getOrDefault(engine.name(), Map.of())));
        }
        return new SandboxCard(engines, new Lifecycle("", "", "", "", "", 0), hints);
    }

    /** {@code available_extensions} → Extensions; {@code available_modules} → Modules. */
    static String label(String featuresKey) {
        if (featuresKey == null || featuresKey.isBlank()) {
            return "Features";
        }
        String word = featuresKey.startsWith("available_") ? featuresKey.substring("available_".length()) : featuresKey;
        word = word.replace('_', ' ');
        return word.substring(0, 1).toUpperCase(Locale.ROOT) + word.substring(1);
    }
}
