package io.roboco.sandbox.verbs;

import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.settings.SettingsStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's identity is bound to its engagement: one spawn of its slug. Spawning the slug again begins a new one and
 * removing the agent ends it; either way what the old one held ends with it: its MCP tokens (the store deletes them
 * with the engagement), its verb set and every named sandbox it owns. Whoever spawns the slug next inherits nothing.
 * Ending is best-effort per sandbox (a failure is logged and the janitor sweeps what is left); the tokens end first,
 * in one store step, so no agent can act while its sandboxes are torn down.
 */
final class Engagements {
    private static final Logger log = LoggerFactory.getLogger(Engagements.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SandboxPlugin plugin;
    private final SettingsStore store;
    private final Clock clock;

    Engagements(SandboxPlugin plugin, Clock clock) {
        this.plugin = plugin;
        this.store = plugin.store();
        this.clock = clock;
    }

    /** Ends the slug's earlier engagement, if any (tokens, verb set, named sandboxes), and begins a new one. */
    void begin(String slug, String why) {
        boolean earlier =
                store.findAgent(slug).isPresent() || store.engagement(slug).isPresent();
        if (earlier) {
            store.endEngagement(slug);
            endSandboxes(slug, why);
        }
        store.beginEngagement(slug, newId(), clock.instant());
    }

    /** Ends the slug's engagement: its tokens, then its verb set and named sandboxes. Returns the containers removed. */
    int end(String slug, String why) {
        store.endEngagement(slug);
        return endSandboxes(slug, why);
    }

    private int endSandboxes(String slug, String why) {
        int removed = releaseQuietly(slug, why);
        return removed
                + plugin.sandboxes()
                        .map(sandboxes -> endNamedQuietly(sandboxes, slug, why))
                        .orElse(0);
    }

    private int releaseQuietly(String slug, String why) {
        try {
            return plugin.service()
                    .release(SandboxService.Release.after(slug, why))
                    .removed();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.warn(
                    "best-effort sandbox release ({}) for agent {} failed ({}); the janitor will sweep it",
                    why,
                    slug,
                    e.getClass().getSimpleName());
            return 0;
        }
    }

    private int endNamedQuietly(Sandboxes sandboxes, String slug, String why) {
        try {
            return sandboxes.endNamedOf(slug, why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (RuntimeException e) {
            log.warn(
                    "ending agent {}'s named sandboxes ({}) failed ({}); they expire with their TTL and the janitor sweeps them",
                    slug,
                    why,
                    e.getClass().getSimpleName());
            return 0;
        }
    }

    private static String newId() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return "eng_" + HexFormat.of().formatHex(bytes);
    }
}
