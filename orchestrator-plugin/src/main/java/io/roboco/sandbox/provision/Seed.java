package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.MaskRule;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a new sandbox of a project starts with, per engine ({@code sandbox_seed}): applied after activation, as the
 * agent's role, so every seeded object belongs to the agent.
 */
public sealed interface Seed {
    /** How the seed reads on a page or in an audit record; never a secret. */
    String describe();

    /** A SQL script stored with the project (capped, see {@code PostgresSeeds.MAX_SQL_BYTES}). */
    record Sql(String script) implements Seed {
        public Sql {
            Objects.requireNonNull(script, "script");
        }

        @Override
        public String describe() {
            return "sql (" + script.getBytes(StandardCharsets.UTF_8).length + " bytes)";
        }
    }

    /**
     * A saved template of the project, restored into each new sandbox.
     *
     * @param revision which save of the template (its created time and schema digest), filled in by the guard chain when
     *                 it looks the template up, so a seeded pool keyed by the seed never serves a replaced template; empty
     *                 as stored with a project
     * @param oneOff   asked for by one call ({@code request_sandbox(template=…)}), not the project's seed: such a sandbox
     *                 starts cold instead of claiming (and so discarding) the project's seeded pool
     * @param project  the project whose templates the name is looked up in (templates belong to a project), filled in by
     *                 the guard chain with the revision; empty as stored with a project (it means that project)
     */
    record Template(String name, String revision, boolean oneOff, String project) implements Seed {
        public Template {
            Objects.requireNonNull(name, "name");
            revision = revision == null ? "" : revision;
            project = project == null ? "" : project;
        }

        /** A project's template seed, as stored. */
        public Template(String name) {
            this(name, "", false, "");
        }

        /** A seed not yet looked up in its project. */
        public Template(String name, String revision, boolean oneOff) {
            this(name, revision, oneOff, "");
        }

        /** This seed as the guard chain found it: template {@code name} of {@code inProject}, at {@code newRevision}. */
        public Template resolved(String inProject, String newRevision) {
            return new Template(name, newRevision, oneOff, inProject);
        }

        public Template withRevision(String newRevision) {
            return new Template(name, newRevision, oneOff, project);
        }

        @Override
        public String describe() {
            return "template " + name;
        }
    }

    /**
     * The schema of a source database whose URL the server reads from its environment under {@code urlEnv} (never
     * stored or echoed); with {@code maxRowsPerTable} (null: schema only) at most that many rows of each table, each
     * column of {@code mask} ({@code schema.table.column}) rewritten by its rule on the way ({@link CloneMask}).
     */
    record Clone(String urlEnv, Integer maxRowsPerTable, Map<String, MaskRule> mask) implements Seed {
        public Clone {
            Objects.requireNonNull(urlEnv, "urlEnv");
            mask = Collections.unmodifiableMap(new TreeMap<>(mask == null ? Map.of() : mask));
        }

        /** Without masking rules. */
        public Clone(String urlEnv, Integer maxRowsPerTable) {
            this(urlEnv, maxRowsPerTable, Map.of());
        }

        @Override
        public String describe() {
            return "clone of $" + urlEnv
                    + (maxRowsPerTable == null
                            ? " (schema only)"
                            : " (at most " + maxRowsPerTable + " rows per table"
                                    + (mask.isEmpty() ? "" : ", " + mask.size() + " masked column(s)") + ")");
        }
    }
}
