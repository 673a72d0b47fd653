package io.roboco.sandbox.engine.mongo;

import java.util.List;

/**
 * The Mongo fidelity table: each feature application code commonly uses, what the local stand-in
 * ({@code roboco-sandbox/mongo-compat}) does with it and what the production image does. {@link MongoFeaturesIT}
 * runs every row against a real stand-in container with the Java driver and pymongo (and, given
 * {@code ROBOCO_TEST_MONGOD_URL}, against a real mongod) and fails when a row's outcome differs from what it says;
 * {@link MongoFidelityDocTest} fails when docs/mongo-fidelity.md does not hold exactly {@link #table()}.
 */
final class MongoFidelity {
    /** What a feature does on a server. */
    enum Outcome {
        /** It works as in mongod (the check's assertions hold). */
        WORKS,
        /** Refused with an error that names it and says the local stand-in lacks it. */
        REFUSED
    }

    /** One row: {@code id} names the Java and pymongo checks. */
    record Feature(
            String id,
            String area,
            String feature,
            Outcome standIn,
            String production,
            boolean needsReplicaSetOrRouter) {
        String standInText() {
            return standIn == Outcome.WORKS ? "yes" : "refused, by name";
        }
    }

    static final String TRANSACTIONS_IN_PRODUCTION =
            "only on a replica set: mongo:8 as the engine starts it (standalone) refuses it, code 20";

    static final List<Feature> FEATURES = List.of(
            works("crud", "basics", "CRUD, upsert, findOneAndUpdate, bulk writes"),
            works("unique-index", "basics", "unique index (duplicate key: code 11000)"),
            works("aggregation", "aggregation", "$match, $group, $lookup, $unwind, $facet, $set, $replaceWith"),
            works("list-collections", "basics", "listCollections with filter and nameOnly"),
            works(
                    "ttl-index",
                    "indexes",
                    "TTL index (expireAfterSeconds; expired documents deleted every 60 s, as mongod)"),
            works(
                    "jsonschema-validator",
                    "validation",
                    "$jsonSchema validator: invalid insert, update, findAndModify refused (code 121, errInfo)"),
            works("validation-level-action", "validation", "validationLevel moderate, validationAction warn"),
            works("collmod-validator", "validation", "collMod validator (needs dbAdmin, as in mongod)"),
            works("bypass-validation", "validation", "bypassDocumentValidation (needs dbAdmin, as in mongod)"),
            works(
                    "text-search",
                    "text search",
                    "$text: tokenised, stemmed, case- and diacritic-insensitive; {$meta: \"textScore\"} sort and projection"),
            works("text-phrases", "text search", "$text phrases (\"...\") and negation (-word)"),
            works("text-aggregate", "text search", "$text in an aggregation's first $match"),
            transaction(
                    "transactions-commit",
                    "multi-document transaction: commit is atomic; outside readers see nothing before it"),
            transaction("transactions-abort", "multi-document transaction: abort discards every write"),
            transaction(
                    "transactions-snapshot",
                    "snapshot isolation: a transaction does not see commits made after it started"),
            transaction("transactions-conflict", "write conflict: TransientTransactionError; withTransaction retries"),
            refused("geo", "indexes", "2dsphere / 2d indexes, $near, $geoWithin"),
            refused("change-streams", "change streams", "change streams (watch, $changeStream)"),
            refused("capped", "collections", "capped collections"),
            refused("views", "collections", "views (create with viewOn)"),
            refused("timeseries", "collections", "time series collections"),
            refused("collation", "queries", "collation other than simple (e.g. case-insensitive strength 2)"),
            refused("window-functions", "aggregation", "$setWindowFields"),
            refused("union-with", "aggregation", "$unionWith"),
            refused("update-pipeline", "updates", "update with an aggregation pipeline"),
            refused("where", "queries", "$where (server-side JavaScript)"),
            refused("explain", "commands", "explain"),
            refused("map-reduce", "commands", "mapReduce"));

    private MongoFidelity() {}

    private static Feature works(String id, String area, String feature) {
        return new Feature(id, area, feature, Outcome.WORKS, "yes", false);
    }

    private static Feature refused(String id, String area, String feature) {
        return new Feature(id, area, feature, Outcome.REFUSED, "yes", false);
    }

    private static Feature transaction(String id, String feature) {
        return new Feature(id, "transactions", feature, Outcome.WORKS, TRANSACTIONS_IN_PRODUCTION, true);
    }

    /** The Markdown table docs/mongo-fidelity.md carries between its markers. */
    static String table() {
        StringBuilder out = new StringBuilder();
        out.append("| area | feature | local stand-in | production (mongo:8) | check |\n");
        out.append("| --- | --- | --- | --- | --- |\n");
        for (Feature f : FEATURES) {
            out.append("| ")
                    .append(f.area())
                    .append(" | ")
                    .append(f.feature().replace("|", "\\|"))
                    .append(" | ")
                    .append(f.standInText())
                    .append(" | ")
                    .append(f.production())
                    .append(" | `")
                    .append(f.id())
                    .append("` |\n");
        }
        return out.toString();
    }
}
