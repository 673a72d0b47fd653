package io.roboco.sandbox.mongocompat.fidelity;

import de.bwaldvogel.mongo.backend.QueryOperator;
import de.bwaldvogel.mongo.backend.aggregation.Expression;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Walks filters, update documents and pipelines before they reach mongo-java-server, which evaluates operators
 * lazily (a {@code $near} on an empty collection would "work") and knows fewer of them than mongod. A name mongod
 * knows and the stand-in does not serve is refused by name ({@link StandIn#refuse}); a name mongod does not know
 * either is left to the backend's own "unknown operator" error.
 */
public final class Operators {
    /** Query operators the backend evaluates, plus {@code $text} (served by the stand-in's text search). */
    static final Set<String> QUERY = union(
            Arrays.stream(QueryOperator.values()).map(QueryOperator::getValue)
                    .filter(op -> !op.equals("$nearSphere") && !op.equals("$geoWithin")),
            Stream.of("$and", "$or", "$nor", "$expr", "$comment", "$regex", "$options", "$ref", "$id", "$db"));

    static final Set<String> TEXT = Set.of("$text", "$search", "$language", "$caseSensitive", "$diacriticSensitive");

    static final Set<String> UPDATE = Set.of("$inc", "$mul", "$rename", "$setOnInsert", "$set", "$unset", "$min", "$max",
            "$currentDate", "$addToSet", "$pop", "$pullAll", "$pull", "$push", "$bit", "$each", "$slice", "$sort",
            "$position");

    /** The backend's stages, and {@code $set} / {@code $replaceWith} (rewritten to {@code $addFields} / {@code $replaceRoot}). */
    static final Set<String> STAGES = Set.of("$match", "$skip", "$limit", "$sort", "$project", "$count", "$group",
            "$addFields", "$set", "$unwind", "$graphLookup", "$lookup", "$replaceRoot", "$replaceWith", "$sample",
            "$sortByCount", "$bucket", "$facet", "$unset", "$indexStats", "$out", "$redact", "$merge");

    static final Set<String> ACCUMULATORS = Set.of("$sum", "$min", "$max", "$avg", "$addToSet", "$push", "$first", "$last");

    static final Set<String> EXPRESSIONS = union(Arrays.stream(Expression.values()).map(Enum::name), Stream.of("$meta"));

    private Operators() {
    }

    /** mongod's aggregation stages the stand-in refuses. */
    public static Set<String> refusedStages() {
        return minus(MongodVocabulary.STAGES, STAGES);
    }

    /** mongod's stages the stand-in serves. */
    public static Set<String> servedStages() {
        return Set.copyOf(STAGES);
    }

    /** mongod's query operators the stand-in refuses. */
    public static Set<String> refusedQueryOperators() {
        Set<String> served = new HashSet<>(QUERY);
        served.addAll(TEXT);
        return minus(MongodVocabulary.QUERY_OPERATORS, served);
    }

    /** mongod's expression operators the stand-in refuses. */
    public static Set<String> refusedExpressions() {
        return minus(MongodVocabulary.EXPRESSIONS, EXPRESSIONS);
    }

    /** mongod's update operators the stand-in refuses. */
    public static Set<String> refusedUpdateOperators() {
        return minus(MongodVocabulary.UPDATE_OPERATORS, UPDATE);
    }

    private static Set<String> minus(Set<String> all, Set<String> served) {
        Set<String> out = new TreeSet<>(all);
        out.removeAll(served);
        return out;
    }

    /** A query filter; {@code textAllowed} where the stand-in's text search serves {@code $text} (find, a first $match). */
    public static void checkFilter(Object filter, String where, boolean textAllowed) {
        if (filter instanceof List<?> list) {
            list.forEach(item -> checkFilter(item, where, false));
            return;
        }
        if (!(filter instanceof Document doc)) {
            return;
        }
        for (Map.Entry<String, Object> e : doc.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("$")) {
                checkFilter(e.getValue(), where, false);
            } else if (key.equals("$expr")) {
                checkExpression(e.getValue(), where);
            } else if (key.equals("$text")) {
                if (!textAllowed) {
                    throw StandIn.refuse("$text in " + where, "the stand-in serves $text in find and in a first $match stage");
                }
                checkKnown(e.getValue(), TEXT, "$text option", where);
            } else if (QUERY.contains(key)) {
                checkFilter(e.getValue(), where, false);
            } else if (key.equals("$jsonSchema")) {
                throw StandIn.refuse("query operator $jsonSchema in " + where,
                        "the stand-in enforces $jsonSchema in collection validators only");
            } else if (MongodVocabulary.QUERY_OPERATORS.contains(key) || MongodVocabulary.EXPRESSIONS.contains(key)) {
                throw StandIn.refuse("query operator " + key + " (in " + where + ")");
            }
        }
    }

    private static void checkKnown(Object value, Set<String> known, String kind, String where) {
        if (value instanceof Document doc) {
            for (String key : doc.keySet()) {
                if (!known.contains(key)) {
                    throw StandIn.refuse(kind + " " + key + " (in " + where + ")");
                }
            }
        }
    }

    /** An aggregation expression: every {@code $name} key is an operator. */
    public static void checkExpression(Object expression, String where) {
        if (expression instanceof List<?> list) {
            list.forEach(item -> checkExpression(item, where));
        } else if (expression instanceof Document doc) {
            for (Map.Entry<String, Object> e : doc.entrySet()) {
                String key = e.getKey();
                if (key.startsWith("$") && !EXPRESSIONS.contains(key)) {
                    if (MongodVocabulary.EXPRESSIONS.contains(key) || MongodVocabulary.QUERY_OPERATORS.contains(key)) {
                        throw StandIn.refuse("expression operator " + key + " (in " + where + ")");
                    }
                }
                if (!key.equals("$literal")) {
                    checkExpression(e.getValue(), where);
                }
            }
        }
    }

    /** An update document ({@code u}, findAndModify's {@code update}); a pipeline-style update is refused. */
    public static void checkUpdate(Object update, String where) {
        if (update instanceof List<?>) {
            throw StandIn.refuse("an update with an aggregation pipeline (in " + where + ")",
                    "use update operators ($set, $inc, ...) or a replacement document");
        }
        if (!(update instanceof Document doc)) {
            return;
        }
        for (Map.Entry<String, Object> e : doc.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("$")) {
                continue; // a replacement document
            }
            if (!UPDATE.contains(key)) {
                if (MongodVocabulary.UPDATE_OPERATORS.contains(key)) {
                    throw StandIn.refuse("update operator " + key + " (in " + where + ")");
                }
                continue;
            }
            if (e.getValue() instanceof Document fields) {
                for (Object value : fields.values()) {
                    if (value instanceof Document modifiers) {
                        for (String modifier : modifiers.keySet()) {
                            if (modifier.startsWith("$") && !UPDATE.contains(modifier) && !QUERY.contains(modifier)
                                    && (MongodVocabulary.UPDATE_OPERATORS.contains(modifier)
                                            || MongodVocabulary.QUERY_OPERATORS.contains(modifier))) {
                                throw StandIn.refuse("update modifier " + modifier + " (in " + where + ")");
                            }
                        }
                    }
                }
            }
        }
    }

    /** A pipeline: stage names, then each stage's filters, expressions, accumulators and nested pipelines. */
    public static void checkPipeline(Object pipeline, String where) {
        if (!(pipeline instanceof List<?> stages)) {
            return;
        }
        for (int i = 0; i < stages.size(); i++) {
            if (!(stages.get(i) instanceof Document stage) || stage.isEmpty()) {
                continue;
            }
            String name = stage.keySet().iterator().next();
            Object spec = stage.get(name);
            if (!STAGES.contains(name)) {
                if (name.equals("$changeStream")) {
                    throw StandIn.refuse("change streams ($changeStream)");
                }
                if (MongodVocabulary.STAGES.contains(name)) {
                    throw StandIn.refuse("aggregation stage " + name + " (in " + where + ")");
                }
                continue;
            }
            switch (name) {
                case "$match" -> checkFilter(spec, where + " $match", i == 0);
                case "$group" -> checkGroup(spec, where);
                case "$facet" -> {
                    if (spec instanceof Document facets) {
                        facets.values().forEach(p -> checkPipeline(p, where + " $facet"));
                    }
                }
                case "$lookup" -> {
                    if (spec instanceof Document lookup) {
                        checkPipeline(lookup.get("pipeline"), where + " $lookup");
                        checkExpression(lookup.get("let"), where + " $lookup");
                    }
                }
                case "$sort" -> checkSort(spec, where);
                default -> checkExpression(spec, where + " " + name);
            }
        }
    }

    private static void checkGroup(Object spec, String where) {
        if (!(spec instanceof Document group)) {
            return;
        }
        for (Map.Entry<String, Object> e : group.entrySet()) {
            if (e.getKey().equals("_id")) {
                checkExpression(e.getValue(), where + " $group");
            } else if (e.getValue() instanceof Document accumulator && !accumulator.isEmpty()) {
                String op = accumulator.keySet().iterator().next();
                if (!ACCUMULATORS.contains(op) && MongodVocabulary.EXPRESSIONS.contains(op)) {
                    throw StandIn.refuse("$group accumulator " + op + " (in " + where + ")");
                }
                checkExpression(accumulator.get(op), where + " $group");
            }
        }
    }

    /** Sort keys: 1 / -1, or {@code {$meta: "textScore"}} (text search). */
    public static void checkSort(Object sort, String where) {
        if (sort instanceof Document doc) {
            for (Object value : doc.values()) {
                if (value instanceof Document meta && !meta.equals(new Document("$meta", "textScore"))) {
                    throw StandIn.refuse("sort by " + meta.toString(true) + " (in " + where + ")");
                }
            }
        }
    }

    /** A projection: plain inclusion/exclusion, the backend's {@code $slice}/{@code $elemMatch}, or text scores. */
    public static void checkProjection(Object projection, String where) {
        if (projection instanceof Document doc) {
            for (Object value : doc.values()) {
                if (value instanceof Document spec) {
                    String op = spec.isEmpty() ? "" : spec.keySet().iterator().next();
                    if (op.equals("$meta") && !"textScore".equals(spec.get("$meta"))) {
                        throw StandIn.refuse("projection {$meta: " + spec.get("$meta") + "} (in " + where + ")");
                    }
                    if (!op.equals("$meta") && !op.equals("$slice") && !op.equals("$elemMatch") && op.startsWith("$")) {
                        checkExpression(spec, where + " projection");
                    }
                }
            }
        }
    }

    private static Set<String> union(Stream<String> a, Stream<String> b) {
        return Stream.concat(a, b).collect(Collectors.toCollection(HashSet::new));
    }
}
