package io.roboco.sandbox.settings;

/** Everything the plugin persists, behind one store (one database, one transaction boundary per call). */
public interface SettingsStore
        extends ProjectStore,
                FlagStore,
                AgentStore,
                AgentTokenStore,
                ClientTokenStore,
                AuditLog,
                AuditHistory,
                SandboxStore,
                SealedCredentialStore,
                SnapshotStore,
                AutoCloseable {
    @Override
    default void close() {}
}
