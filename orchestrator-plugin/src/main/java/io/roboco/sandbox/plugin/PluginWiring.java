package io.roboco.sandbox.plugin;

import io.roboco.sandbox.lifecycle.SandboxBook;
import io.roboco.sandbox.readopt.CredentialVault;
import java.util.List;

/**
 * What {@link SandboxPluginBuilder} wires around the core, handed to the plugin whole at construction (nothing is set
 * later).
 *
 * @param book               the sandbox records (TTL, quotas, capacity, named sandboxes); null for a plugin without them
 * @param vault              where handed-out credentials are sealed (re-adoption on); null when they are not
 * @param events             told of every decision (metrics)
 * @param releaseOnCloseVerb closing releases every live sandbox, audited under this verb; null: closing releases none
 * @param keepsSandboxes     closing keeps live sandboxes for the next start to re-adopt (never the idle pool)
 * @param announces          closing logs what it keeps or releases (a server's stop)
 * @param stopping           run first on close (the plugin's state becomes STOPPING)
 * @param extensions         what the builder's extensions started, closed first, newest first
 * @param owned              what the builder made itself (runtime, store), closed last
 */
record PluginWiring(
        SandboxBook book,
        CredentialVault vault,
        SandboxEvents events,
        String releaseOnCloseVerb,
        boolean keepsSandboxes,
        boolean announces,
        Runnable stopping,
        List<AutoCloseable> extensions,
        List<AutoCloseable> owned) {

    static PluginWiring none() {
        return new PluginWiring(null, null, SandboxEvents.none(), null, false, false, () -> {}, List.of(), List.of());
    }
}
