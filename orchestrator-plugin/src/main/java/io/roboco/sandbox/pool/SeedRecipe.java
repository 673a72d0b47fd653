package io.roboco.sandbox.pool;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServicePlan;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one seeded warm pool makes: containers of one project's image, with that project's seed applied and the
 * features its sandboxes ask for activated. Keyed by the image's pool key, the project and a digest of the seed, so a
 * changed seed is a different pool (the old one is discarded, never served).
 *
 * @param project the project whose seed it is
 * @param plan    the plan containers are made from: its image, seed and features (the features every claim so far asked for)
 * @param digest  the first 12 hex digits of the seed's SHA-256
 */
record SeedRecipe(String project, ServicePlan plan, String digest) {
    SeedRecipe {
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(plan.seed(), "seed");
    }

    static SeedRecipe of(String project, ServicePlan plan) {
        return new SeedRecipe(project, plan, digestOf(plan));
    }

    /** The pool key: {@code postgres@image#project:digest}. */
    String key() {
        return plan.image().poolKey() + "#" + project + ":" + digest;
    }

    /** Which project-and-image slot the recipe fills; one recipe per slot at a time. */
    String slot() {
        return project + "@" + plan.image().poolKey();
    }

    /** Whether {@code poolKey} is a seeded pool's ({@link #key}) rather than an image's. */
    static boolean isSeededKey(String poolKey) {
        return poolKey.indexOf('#') > 0;
    }

    /** The {@link #slot} of a seeded pool key, e.g. after a restart, when only the key is known. */
    static String slotOf(String seededKey) {
        int hash = seededKey.indexOf('#');
        String rest = seededKey.substring(hash + 1);
        return rest.substring(0, rest.lastIndexOf(':')) + "@" + seededKey.substring(0, hash);
    }

    /** The project of a seeded pool key. */
    static String projectOf(String seededKey) {
        String rest = seededKey.substring(seededKey.indexOf('#') + 1);
        return rest.substring(0, rest.lastIndexOf(':'));
    }

    /** The {@code roboco.sandbox.pool.seed} label value: {@code project:digest}. */
    String label() {
        return project + ":" + digest;
    }

    Set<String> features() {
        return plan.featureNames();
    }

    /** The same recipe making containers with only the features {@code next} also asks for. */
    SeedRecipe narrowedTo(ServicePlan next) {
        Set<AllowedFeature> common = new TreeSet<>(plan.features());
        common.retainAll(next.features());
        return new SeedRecipe(
                project, new ServicePlan(plan.engine(), plan.image(), common, plan.seed(), plan.limits()), digest);
    }

    /**
     * The seed's digest: its kind and every component of it (a record's text: the script, the clone's variable name and
     * row cap, the template's name and revision, i.e. which save of it), so any change to what the seed says is a new digest. Not a secret (the clone's
     * source URL is read from the environment and is not part of the seed).
     */
    static String digestOf(ServicePlan plan) {
        Seed seed = plan.seed();
        String canonical;
        if (seed instanceof Seed.Sql sql) {
            canonical = "sql\0" + sql.script();
        } else if (seed instanceof Seed.Clone clone) {
            StringBuilder mask = new StringBuilder();
            clone.mask()
                    .forEach((column, rule) ->
                            mask.append('\0').append(column).append('=').append(rule.json()));
            canonical = "clone\0" + clone.urlEnv() + "\0" + clone.maxRowsPerTable() + mask;
        } else if (seed instanceof Seed.Template template) {
            canonical = "template\0" + template.name() + "\0" + template.revision();
        } else {
            canonical = seed.getClass().getName() + "\0" + seed;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
