package io.roboco.sandbox.settings;

import io.roboco.sandbox.engine.CloneMask;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.MaskRule;
import io.roboco.sandbox.engine.Seeds;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.template.TemplateStore;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code sandbox_seed} as JSON, per engine: {@code {"sql": "…"}}, {@code {"template": "name"}} or
 * {@code {"clone": {"url_env": "SHOP_DB_URL", "data": false | {"max_rows_per_table": N}}}}. The same shape is what the
 * API answers and what the store keeps; a clone names an environment variable of the server, never a URL.
 */
public final class SeedForm {
    /** An environment variable name; the server's own settings ({@code ROBOCO_SANDBOX_*}) may never be a clone source. */
    private static final Pattern ENV_NAME = Pattern.compile("[A-Z_][A-Z0-9_]{0,63}");

    public static final int MAX_ROWS_PER_TABLE = 100_000;
    /** The rows per table of {@code "data": true}. */
    public static final int DEFAULT_ROWS_PER_TABLE = 10_000;

    static final String SHAPE = "{\"sql\":\"…\"} or {\"template\":\"name\"} or {\"clone\":{\"url_env\":\"SHOP_DB_URL\","
            + "\"data\":false|true|{\"max_rows_per_table\":N},\"mask\"?:{\"table.column\":\"rule\"}}}";

    private SeedForm() {}

    /** {@code sandbox_seed}: service → seed, each service opted in and able to take one (its engine offers {@link Engine#seeds}). */
    static Map<String, Seed> parseAll(Object raw, List<String> services, EngineRegistry registry) {
        Map<String, Seed> seeds = new TreeMap<>();
        if (raw == null) {
            return seeds;
        }
        if (!(raw instanceof Map)) {
            throw new BadRequest("'sandbox_seed' must be an object mapping a service to its seed, e.g. {\"postgres\":"
                    + SHAPE + "}");
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
            String service = String.valueOf(e.getKey());
            if (!services.contains(service)) {
                throw new BadRequest("sandbox_seed names service '" + Names.printable(service)
                        + "', which is not in sandbox_services " + services + "; nothing saved");
            }
            if (registry.find(service).flatMap(Engine::seeds).isEmpty()) {
                throw new BadRequest("sandbox_seed." + service + ": only " + registry.namesOffering(Engine::seeds)
                        + " sandboxes take a seed; nothing saved");
            }
            if (e.getValue() != null) {
                seeds.put(service, parse(service, e.getValue()));
            }
        }
        return seeds;
    }

    /** One engine's seed. */
    public static Seed parse(String service, Object raw) {
        String field = "sandbox_seed." + service;
        if (!(raw instanceof Map<?, ?> m) || m.size() != 1) {
            throw new BadRequest("'" + field + "' must be exactly one of " + SHAPE);
        }
        Map.Entry<?, ?> only = m.entrySet().iterator().next();
        String kind = String.valueOf(only.getKey());
        Object value = only.getValue();
        switch (kind) {
            case "sql" -> {
                if (!(value instanceof String script) || script.isBlank()) {
                    throw new BadRequest("'" + field + ".sql' must be a non-empty string of SQL");
                }
                int bytes = script.getBytes(StandardCharsets.UTF_8).length;
                if (bytes > Seeds.MAX_SCRIPT_BYTES) {
                    throw new BadRequest(
                            "'" + field + ".sql' is " + bytes + " bytes; the limit is " + Seeds.MAX_SCRIPT_BYTES
                                    + " bytes (256 KiB); for a larger schema use a clone or a template; nothing saved");
                }
                return new Seed.Sql(script);
            }
            case "template" -> {
                return new Seed.Template(
                        TemplateName.parse(field + ".template", value).value());
            }
            case "clone" -> {
                return clone(field + ".clone", value);
            }
            default ->
                throw new BadRequest("'" + field + "' has unknown kind '" + Names.printable(kind) + "'; use " + SHAPE);
        }
    }

    private static Seed clone(String field, Object value) {
        if (!(value instanceof Map<?, ?> c)) {
            throw new BadRequest("'" + field
                    + "' must be {\"url_env\":\"NAME\",\"data\":false|true|{\"max_rows_per_table\":N},\"mask\"?:{…}}");
        }
        for (Object key : c.keySet()) {
            if (!"url_env".equals(key) && !"data".equals(key) && !"mask".equals(key)) {
                throw new BadRequest("'" + field + "' takes url_env, data and mask, not '"
                        + Names.printable(String.valueOf(key)) + "'");
            }
        }
        Map<String, MaskRule> mask = mask(field + ".mask", c.get("mask"));
        if (!(c.get("url_env") instanceof String env) || !ENV_NAME.matcher(env).matches()) {
            throw new BadRequest(
                    "'" + field + ".url_env' must name an environment variable of the server (A-Z, 0-9, _),"
                            + " which holds the source's postgresql:// URL");
        }
        if (env.startsWith("ROBOCO_SANDBOX_")) {
            throw new BadRequest("'" + field
                    + ".url_env' may not name one of the server's own settings (ROBOCO_SANDBOX_*); nothing saved");
        }
        Object data = c.get("data");
        if (data == null || Boolean.FALSE.equals(data)) {
            if (!mask.isEmpty()) {
                throw new BadRequest("'" + field + ".mask' rewrites cloned rows, and this clone copies none (data is"
                        + " false): set data to true or {\"max_rows_per_table\": N}, or drop the mask; nothing saved");
            }
            return new Seed.Clone(env, null);
        }
        if (Boolean.TRUE.equals(data)) {
            return new Seed.Clone(env, DEFAULT_ROWS_PER_TABLE, mask);
        }
        if (data instanceof Map<?, ?> d
                && d.size() == 1
                && d.get("max_rows_per_table") instanceof Number n
                && n.doubleValue() == Math.rint(n.doubleValue())
                && n.longValue() >= 1
                && n.longValue() <= MAX_ROWS_PER_TABLE) {
            return new Seed.Clone(env, n.intValue(), mask);
        }
        throw new BadRequest("'" + field + ".data' must be false (schema only), true (at most " + DEFAULT_ROWS_PER_TABLE
                + " rows per table) or {\"max_rows_per_table\": N} with N 1-" + MAX_ROWS_PER_TABLE
                + " (data is always capped)");
    }

    /**
     * A clone's {@code mask}: {@code {"table.column" | "schema.table.column": rule}} ({@link MaskRule#parse}), keyed
     * {@code schema.table.column}; a malformed column or an unknown rule is refused naming it. Whether the column exists
     * is the source's to say: the seed refuses a rule naming no column of it, before it copies anything.
     */
    static Map<String, MaskRule> mask(String field, Object raw) {
        Map<String, MaskRule> out = new TreeMap<>();
        if (raw == null) {
            return out;
        }
        if (!(raw instanceof Map<?, ?> m)) {
            throw new BadRequest("'" + field + "' must be an object of column to rule, e.g. {\"users.email\":"
                    + " \"fake_email\", \"users.card_number\": \"keep_last(4)\"}; rules: " + MaskRule.RULES);
        }
        if (m.size() > CloneMask.MAX_RULES) {
            throw new BadRequest("'" + field + "' has " + m.size() + " rules; at most " + CloneMask.MAX_RULES);
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            String column;
            try {
                column = CloneMask.columnKey(key);
            } catch (IllegalArgumentException bad) {
                throw new BadRequest(
                        "'" + field + "." + Names.printable(key) + "': " + bad.getMessage() + "; nothing saved");
            }
            MaskRule rule;
            try {
                rule = MaskRule.parse(e.getValue());
            } catch (IllegalArgumentException bad) {
                throw new BadRequest(
                        "'" + field + "." + Names.printable(key) + "': " + bad.getMessage() + "; nothing saved");
            }
            if (out.put(column, rule) != null) {
                throw new BadRequest("'" + field + "' names " + column + " twice; nothing saved");
            }
        }
        return out;
    }

    /**
     * A project's template seed names one of the project's own templates that restores into the project's postgres major (the same or
     * newer than the template's); else a {@link BadRequest} naming the known templates or the majors.
     */
    static void requireTemplates(
            Project project, TemplateStore templates, EngineRegistry registry, ProvisionSettings images) {
        for (Map.Entry<String, Seed> e : project.seeds().entrySet()) {
            if (!(e.getValue() instanceof Seed.Template t)) {
                continue;
            }
            String field = "sandbox_seed." + e.getKey() + ".template";
            Optional<TemplateInfo> info = templates.find(project.id(), t.name());
            if (info.isEmpty()) {
                throw new BadRequest(
                        "'" + field + "': project '" + project.id() + "' has no template '" + t.name()
                                + "'; its templates: "
                                + templates.knownNames(project.id())
                                + " (templates belong to a project: save one from its sandbox with POST"
                                + " /api/sandboxes/{id}/templates, or copy another project's with POST /api/templates/{name}/copy); nothing saved");
            }
            if (images != null && registry.find(e.getKey()).isPresent()) {
                String major;
                try {
                    major = images.choose(registry.require(e.getKey()), project.versionFor(e.getKey()))
                            .major();
                } catch (RuntimeException unknownMajor) {
                    continue;
                }
                Optional<String> refusal = info.get().refusalFor(major, "the project");
                if (refusal.isPresent()) {
                    throw new BadRequest("'" + field + "': " + refusal.get() + "; nothing saved");
                }
            }
        }
    }

    /** The JSON of a seed, as parsed. */
    public static Map<String, Object> toJson(Seed seed) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (seed instanceof Seed.Sql sql) {
            out.put("sql", sql.script());
        } else if (seed instanceof Seed.Template t) {
            out.put("template", t.name());
        } else if (seed instanceof Seed.Clone c) {
            Map<String, Object> clone = new LinkedHashMap<>();
            clone.put("url_env", c.urlEnv());
            clone.put("data", c.maxRowsPerTable() == null ? false : Map.of("max_rows_per_table", c.maxRowsPerTable()));
            if (!c.mask().isEmpty()) {
                Map<String, Object> mask = new TreeMap<>();
                c.mask().forEach((column, rule) -> mask.put(column, rule.json()));
                clone.put("mask", mask);
            }
            out.put("clone", clone);
        }
        return out;
    }

    /** Every seed of a project as JSON. */
    public static Map<String, Object> toJson(Map<String, Seed> seeds) {
        Map<String, Object> out = new TreeMap<>();
        seeds.forEach((service, seed) -> out.put(service, toJson(seed)));
        return out;
    }

    /** A stored mask, read back as it was written (keys already {@code schema.table.column}). */
    private static Map<String, MaskRule> storedMask(Object raw) {
        Map<String, MaskRule> out = new TreeMap<>();
        if (raw instanceof Map<?, ?> m) {
            m.forEach((column, rule) -> out.put(String.valueOf(column), MaskRule.parse(rule)));
        }
        return out;
    }

    /** Seeds the store kept ({@link #toJson(Map)}), read back without the API's rules on new input. */
    public static Map<String, Seed> fromStored(Map<String, Object> stored) {
        Map<String, Seed> out = new TreeMap<>();
        if (stored == null) {
            return out;
        }
        stored.forEach((service, raw) -> {
            if (raw instanceof Map<?, ?> m && m.get("sql") instanceof String script) {
                out.put(service, new Seed.Sql(script));
            } else if (raw instanceof Map<?, ?> m && m.get("template") instanceof String name) {
                out.put(service, new Seed.Template(name));
            } else if (raw instanceof Map<?, ?> m && m.get("clone") instanceof Map<?, ?> c) {
                Object data = c.get("data");
                Integer max = data instanceof Map<?, ?> d && d.get("max_rows_per_table") instanceof Number n
                        ? n.intValue()
                        : null;
                out.put(service, new Seed.Clone(String.valueOf(c.get("url_env")), max, storedMask(c.get("mask"))));
            }
        });
        return out;
    }
}
