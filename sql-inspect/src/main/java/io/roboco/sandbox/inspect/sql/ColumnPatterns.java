package io.roboco.sandbox.inspect.sql;

import io.roboco.sandbox.engine.CloneMask;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Denied column names as glob patterns ({@code *} any run of characters, {@code ?} one character), matched
 * case-insensitively against whole names. The default list is pgscout's
 * ({@code PGSCOUT_DENY_COLUMNS}): {@code *password*, passwd, ssn, *secret*, *api_key*, *token*, card_number, cvv}.
 */
public final class ColumnPatterns {
    /** The one list, shared with the clone seed's masking check ({@link CloneMask#DENIED_DEFAULTS}). */
    public static final List<String> PGSCOUT_DEFAULTS = CloneMask.DENIED_DEFAULTS;

    private static final Pattern WELL_FORMED = Pattern.compile("[\\p{L}\\p{N}_$*?]+");

    private final List<String> globs;
    private final List<Pattern> compiled;

    private ColumnPatterns(List<String> globs) {
        this.globs = List.copyOf(globs);
        List<Pattern> list = new ArrayList<>();
        for (String glob : globs) {
            list.add(Glob.compile(glob));
        }
        this.compiled = List.copyOf(list);
    }

    public static ColumnPatterns defaults() {
        return new ColumnPatterns(PGSCOUT_DEFAULTS);
    }

    /** Nothing denied (a project that turned the list off explicitly). */
    public static ColumnPatterns none() {
        return new ColumnPatterns(List.of());
    }

    /**
     * Parses a project's list. Fails closed: a blank or malformed pattern is an error naming it, never
     * skipped (skipping would deny less than the operator asked for).
     */
    public static ColumnPatterns of(List<String> globs) {
        if (globs == null) {
            throw new IllegalArgumentException("denied column patterns: a list is required (use [] to deny nothing)");
        }
        for (String glob : globs) {
            if (glob == null
                    || !WELL_FORMED.matcher(glob).matches()
                    || glob.chars().allMatch(ch -> ch == '*')) {
                throw new IllegalArgumentException(
                        "denied column pattern '" + glob
                                + "' is not a usable glob: use letters, digits, _ and $, with * and ? as wildcards (e.g. *password*)");
            }
        }
        return new ColumnPatterns(globs);
    }

    /** The first pattern {@code name} matches, if any. */
    public Optional<String> match(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String lower = name.toLowerCase(Locale.ROOT);
        for (int k = 0; k < compiled.size(); k++) {
            if (compiled.get(k).matcher(lower).matches()) {
                return Optional.of(globs.get(k));
            }
        }
        return Optional.empty();
    }

    public boolean denies(String name) {
        return match(name).isPresent();
    }

    public List<String> globs() {
        return globs;
    }

    @Override
    public String toString() {
        return String.join(", ", globs);
    }
}
