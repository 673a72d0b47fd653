package io.roboco.sandbox.mongocompat.fidelity;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The options of the commands whose bodies the stand-in interprets, as three sets per command: honoured, harmless
 * on one in-memory node (accepted, same outcome), and mongod options the stand-in lacks (refused by name). An option
 * on none of them is what mongod calls an unknown field (code 40415). The same for update and delete statements and
 * index specifications.
 */
public final class CommandOptions {
    /** On every command: session, transaction and routing fields, concerns (one node: same outcome), comments, API version. */
    static final Set<String> GENERIC = Set.of("$db", "lsid", "txnNumber", "autocommit", "startTransaction", "stmtId",
            "stmtIds", "$clusterTime", "$readPreference", "readConcern", "writeConcern", "comment", "maxTimeMS",
            "apiVersion", "apiStrict", "apiDeprecationErrors", "recoveryToken", "$client", "$audit");

    private record Rules(Set<String> accepted, Set<String> refused) {
    }

    private static final Map<String, Rules> COMMANDS = Map.ofEntries(
            Map.entry("find", new Rules(Set.of("filter", "sort", "projection", "skip", "limit", "batchSize", "singleBatch",
                    "hint", "allowDiskUse", "noCursorTimeout", "allowPartialResults", "collation"),
                    Set.of("returnKey", "showRecordId", "min", "max", "let", "tailable", "awaitData", "oplogReplay",
                            "readOnce"))),
            Map.entry("count", new Rules(Set.of("query", "limit", "skip", "hint", "collation", "fields"), Set.of())),
            Map.entry("distinct", new Rules(Set.of("key", "query", "hint", "collation"), Set.of())),
            Map.entry("aggregate", new Rules(Set.of("pipeline", "cursor", "allowDiskUse", "bypassDocumentValidation", "hint",
                    "collation", "explain"), Set.of("let"))),
            Map.entry("insert", new Rules(Set.of("documents", "ordered", "bypassDocumentValidation"), Set.of())),
            Map.entry("update", new Rules(Set.of("updates", "ordered", "bypassDocumentValidation"), Set.of("let"))),
            Map.entry("delete", new Rules(Set.of("deletes", "ordered"), Set.of("let"))),
            Map.entry("findandmodify", new Rules(Set.of("query", "sort", "remove", "update", "new", "fields", "upsert",
                    "bypassDocumentValidation", "arrayFilters", "hint", "collation"), Set.of("let"))),
            Map.entry("create", new Rules(Set.of("validator", "validationLevel", "validationAction", "capped",
                    "autoIndexId", "storageEngine", "indexOptionDefaults", "collation"),
                    Set.of("size", "max", "timeseries", "expireAfterSeconds", "clusteredIndex",
                            "changeStreamPreAndPostImages", "viewOn", "pipeline", "encryptedFields"))),
            Map.entry("createindexes", new Rules(Set.of("indexes", "commitQuorum"), Set.of())),
            Map.entry("collmod", new Rules(Set.of("validator", "validationLevel", "validationAction"),
                    Set.of("index", "viewOn", "pipeline", "expireAfterSeconds", "changeStreamPreAndPostImages",
                            "cappedSize", "cappedMax", "timeseries", "dryRun", "recordIdsReplicated"))),
            Map.entry("listcollections", new Rules(Set.of("filter", "nameOnly", "authorizedCollections", "cursor"), Set.of())),
            Map.entry("listindexes", new Rules(Set.of("cursor"), Set.of())));

    private static final Set<String> UPDATE_STATEMENT = Set.of("q", "u", "upsert", "multi", "arrayFilters", "hint", "collation");
    private static final Set<String> UPDATE_STATEMENT_REFUSED = Set.of("c", "sort");
    private static final Set<String> DELETE_STATEMENT = Set.of("q", "limit", "hint", "collation");

    /** Index options: honoured (unique, sparse, TTL, text options), harmless (background, hidden, storageEngine, v, ns). */
    private static final Set<String> INDEX = Set.of("key", "name", "unique", "sparse", "expireAfterSeconds", "background",
            "hidden", "storageEngine", "v", "ns", "partialFilterExpression", "collation", "weights", "default_language",
            "language_override", "textIndexVersion");
    private static final Set<String> INDEX_REFUSED = Set.of("2dsphereIndexVersion", "bits", "min", "max",
            "wildcardProjection", "bucketSize", "dropDups", "prepareUnique", "clustered");

    private CommandOptions() {
    }

    /** Command (lower case) → the mongod options the stand-in refuses; for tests and docs. */
    public static Map<String, Set<String>> refused() {
        Map<String, Set<String>> out = new TreeMap<>();
        COMMANDS.forEach((command, rules) -> out.put(command, rules.refused()));
        out.put("update statement", UPDATE_STATEMENT_REFUSED);
        out.put("index", INDEX_REFUSED);
        return out;
    }

    /** Command (lower case) → the options it honours or accepts as harmless; for tests and docs. */
    public static Map<String, Set<String>> accepted() {
        Map<String, Set<String>> out = new TreeMap<>();
        COMMANDS.forEach((command, rules) -> out.put(command, rules.accepted()));
        out.put("update statement", UPDATE_STATEMENT);
        out.put("delete statement", DELETE_STATEMENT);
        out.put("index", INDEX);
        return out;
    }

    /** Refuses what {@code command}'s body asks and the stand-in would not honour. */
    public static void check(String command, Document body) {
        String lower = command.toLowerCase(Locale.ROOT);
        Rules rules = COMMANDS.get(lower);
        if (rules == null) {
            return;
        }
        boolean first = true;
        for (Map.Entry<String, Object> e : body.entrySet()) {
            if (first) {
                first = false;
                continue;
            }
            String key = e.getKey();
            if (GENERIC.contains(key)) {
                continue;
            }
            if (rules.refused().contains(key)) {
                throw StandIn.refuse("option '" + key + "' of " + command);
            }
            if (!rules.accepted().contains(key)) {
                throw unknownField(command, key);
            }
            checkValue(command, key, e.getValue());
        }
        switch (lower) {
            case "update" -> statements(body.get("updates"), command, UPDATE_STATEMENT, UPDATE_STATEMENT_REFUSED);
            case "delete" -> statements(body.get("deletes"), command, DELETE_STATEMENT, Set.of());
            case "createindexes" -> statements(body.get("indexes"), command, INDEX, INDEX_REFUSED);
            default -> {
            }
        }
    }

    /** Options accepted only with some values. */
    private static void checkValue(String command, String key, Object value) {
        switch (key) {
            case "collation" -> {
                if (!(value instanceof Document c) || !"simple".equals(c.get("locale"))) {
                    throw StandIn.refuse("collation (option 'collation' of " + command + ")",
                            "only {locale: \"simple\"} (binary comparison) is served");
                }
            }
            case "capped" -> {
                if (Utils.isTrue(value)) {
                    throw StandIn.refuse("capped collections (option 'capped' of " + command + ")");
                }
            }
            case "explain" -> {
                if (Utils.isTrue(value)) {
                    throw StandIn.refuse("explain (option 'explain' of " + command + ")");
                }
            }
            case "autoIndexId" -> {
                if (!Utils.isTrue(value)) {
                    throw StandIn.refuse("autoIndexId: false (option of " + command + ")");
                }
            }
            default -> {
            }
        }
    }

    private static void statements(Object list, String command, Set<String> accepted, Set<String> refused) {
        if (!(list instanceof List<?> items)) {
            return;
        }
        String what = command.equalsIgnoreCase("createIndexes") ? "index option" : command + " statement field";
        for (Object item : items) {
            if (!(item instanceof Document statement)) {
                continue;
            }
            for (Map.Entry<String, Object> e : statement.entrySet()) {
                String key = e.getKey();
                if (refused.contains(key)) {
                    throw StandIn.refuse(what + " '" + key + "'");
                }
                if (!accepted.contains(key)) {
                    throw unknownField(command, key);
                }
                if (key.equals("collation")) {
                    checkValue(command, key, e.getValue());
                }
            }
            if (command.equalsIgnoreCase("createIndexes")) {
                checkIndex(statement);
            }
        }
    }

    /** Index kinds: ascending/descending and text only; a partial or collated unique index would enforce differently. */
    private static void checkIndex(Document index) {
        if (index.get("key") instanceof Document key) {
            for (Map.Entry<String, Object> e : key.entrySet()) {
                if (e.getKey().equals("$**") || e.getKey().endsWith(".$**")) {
                    throw StandIn.refuse("wildcard indexes (" + e.getKey() + ")");
                }
                if (e.getValue() instanceof String kind && !kind.equals("text")) {
                    throw StandIn.refuse("'" + kind + "' indexes (on " + e.getKey() + ")",
                            kind.startsWith("2d") ? "geospatial queries ($near, $geoWithin) are not served either" : "");
                }
            }
        }
        boolean unique = Utils.isTrue(index.get("unique"));
        if (unique && index.containsKey("partialFilterExpression")) {
            throw StandIn.refuse("unique indexes with partialFilterExpression",
                    "a unique index here applies to every document");
        }
        if (index.containsKey("partialFilterExpression")) {
            Operators.checkFilter(index.get("partialFilterExpression"), "partialFilterExpression", false);
        }
    }

    static MongoServerError unknownField(String command, String key) {
        return new MongoServerError(40415, "Location40415", "BSON field '" + command + "." + key + "' is an unknown field.");
    }
}
