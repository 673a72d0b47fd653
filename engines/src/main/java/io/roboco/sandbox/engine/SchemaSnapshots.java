package io.roboco.sandbox.engine;

/**
 * Schema snapshots of a sandbox's database ({@link Engine#schemaSnapshots}), read on the agent's own credential (what
 * the agent can see is what it owns): the before-state {@code snapshot_schema} keeps, what {@code diff_schema} compares
 * with ({@link SchemaDiff}), and a template's description.
 */
public interface SchemaSnapshots {
    SchemaDigest snapshot(ProbeTarget target) throws Exception;
}
