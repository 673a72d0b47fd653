package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.Printable;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Echoing the names callers send. Their shapes are the value types' ({@link AgentSlug}, {@link Owner},
 * {@link ProjectId}, {@link ServiceName}, {@link Role}, {@link SandboxName}, {@link TemplateName},
 * {@link SnapshotName}, {@link io.roboco.sandbox.engine.CheckpointName}).
 */
public final class Names {
    private Names() {}

    /** Any character outside an agent slug's alphabet (lower-case letters, digits, {@code _ . -}). */
    private static final Pattern OUTSIDE_SLUG_ALPHABET = Pattern.compile("[^a-z0-9_.-]");

    /**
     * A name as part of a Docker object's name (a container's, a network's): lower-cased, each character outside an
     * agent slug's alphabet a {@code -}. Written once for every Docker name the plugin makes.
     */
    public static String inDockerName(String s) {
        return OUTSIDE_SLUG_ALPHABET.matcher(s.toLowerCase(Locale.ROOT)).replaceAll("-");
    }

    /** Echoes caller input safely; see {@link Printable}. */
    public static String printable(String s) {
        return Printable.of(s);
    }
}
