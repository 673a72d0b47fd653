package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.text.TextIndex;
import io.roboco.sandbox.mongocompat.text.TextQuery;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code $text} in {@code find} and in an aggregation's first {@code $match}: the stand-in scores the collection's
 * documents against its text index ({@link TextIndex}), then hands the backend an aggregation that keeps the matching
 * {@code _id}s and carries each score in a hidden field, so {@code {$meta: "textScore"}} sorts and projections, skip,
 * limit, the rest of the filter and cursors all run in mongo-java-server as usual. Also rewrites {@code $set} and
 * {@code $replaceWith} stages to the backend's {@code $addFields} / {@code $replaceRoot}.
 */
final class TextSearch {
    static final String SCORE = "_roboco_textScore";
    private static final Document TEXT_SCORE = new Document("$meta", "textScore");

    private final StandInMemory memory;
    private final Catalog catalog;

    TextSearch(StandInMemory memory, Catalog catalog) {
        this.memory = memory;
        this.catalog = catalog;
    }

    boolean isText(Object filter) {
        return filter instanceof Document f && f.containsKey("$text");
    }

    /** {@code find} with {@code $text}: the same answer as an aggregation (a cursor on the same namespace). */
    Document find(Channel channel, String db, String command, Document body) {
        String collection = String.valueOf(body.get(command));
        Document filter = (Document) body.get("filter");
        List<Document> pipeline = new ArrayList<>(scored(db, collection, filter));
        if (body.get("sort") instanceof Document sort && !sort.isEmpty()) {
            pipeline.add(new Document("$sort", scoreSort(sort)));
        }
        if (body.get("skip") instanceof Number skip && skip.longValue() > 0) {
            pipeline.add(new Document("$skip", skip));
        }
        if (body.get("limit") instanceof Number limit && limit.longValue() != 0) {
            pipeline.add(new Document("$limit", Math.abs(limit.longValue())));
        }
        if (body.get("projection") instanceof Document projection && !projection.isEmpty()) {
            pipeline.addAll(projection(projection));
        }
        pipeline.add(new Document("$unset", SCORE));
        Document cursor = new Document();
        if (body.get("batchSize") instanceof Number batchSize) {
            cursor.put("batchSize", batchSize);
        }
        return memory.handleCommand(channel, db, "aggregate",
                new Document("aggregate", collection).append("pipeline", pipeline).append("cursor", cursor));
    }

    /** {@code aggregate}: {@code $set}/{@code $replaceWith} rewritten everywhere, {@code $text} served in a first {@code $match}. */
    Document aggregate(Channel channel, String db, String command, Document body) {
        if (!(body.get("pipeline") instanceof List<?> stages)) {
            return memory.handleCommand(channel, db, command, body);
        }
        List<Object> pipeline = Pipelines.rewrite(stages);
        if (!pipeline.isEmpty() && pipeline.get(0) instanceof Document first && first.get("$match") instanceof Document match
                && isText(match)) {
            List<Object> rest = new ArrayList<>(pipeline.subList(1, pipeline.size()));
            pipeline = new ArrayList<>(scored(db, String.valueOf(body.get(command)), match));
            boolean ends = !rest.isEmpty() && rest.get(rest.size() - 1) instanceof Document last
                    && (last.containsKey("$out") || last.containsKey("$merge"));
            Object terminal = ends ? rest.remove(rest.size() - 1) : null;
            for (Object stage : rest) {
                pipeline.add(replaceMeta(stage));
            }
            pipeline.add(new Document("$unset", SCORE));
            if (terminal != null) {
                pipeline.add(terminal);
            }
        }
        Document forBackend = new Document(body);
        forBackend.put("pipeline", pipeline);
        return memory.handleCommand(channel, db, command, forBackend);
    }

    /** The first stages: the non-text part of the filter and the matching ids, then each document's score. */
    private List<Document> scored(String db, String collection, Document filter) {
        TextIndex index = catalog.textIndex(db + "." + collection);
        if (index == null) {
            throw new MongoServerError(27, "IndexNotFound", "text index required for $text query");
        }
        TextQuery query = TextQuery.parse(filter.get("$text"));
        Document rest = new Document(filter);
        rest.remove("$text");
        List<Object> ids = new ArrayList<>();
        List<Object> scores = new ArrayList<>();
        MongoCollection<?> coll = memory.collection(db, collection).orElse(null);
        if (coll != null) {
            for (Document doc : StandInMemory.find(coll, rest, null, 0)) {
                double score = index.score(doc, query);
                if (score > 0) {
                    ids.add(doc.get("_id"));
                    scores.add(score);
                }
            }
        }
        Document match = rest.isEmpty() ? new Document("_id", new Document("$in", ids))
                : new Document("$and", List.of(rest, new Document("_id", new Document("$in", ids))));
        Document score = new Document("$arrayElemAt", List.of(scores, new Document("$indexOfArray", List.of(ids, "$_id"))));
        return List.of(new Document("$match", match), new Document("$addFields", new Document(SCORE, score)));
    }

    private static Document scoreSort(Document sort) {
        Document out = new Document();
        sort.forEach((k, v) -> {
            if (TEXT_SCORE.equals(v)) {
                out.put(SCORE, -1);
            } else {
                out.put(k, v);
            }
        });
        return out;
    }

    /** A find projection with {@code {$meta: "textScore"}} fields, as stages. */
    private static List<Document> projection(Document projection) {
        Document scores = new Document();
        Document plain = new Document();
        projection.forEach((k, v) -> {
            if (TEXT_SCORE.equals(v)) {
                scores.put(k, "$" + SCORE);
            } else {
                plain.put(k, v);
            }
        });
        List<Document> stages = new ArrayList<>();
        boolean inclusion = plain.entrySet().stream()
                .anyMatch(e -> !e.getKey().equals("_id") && !(e.getValue() instanceof Number n && n.intValue() == 0)
                        && !Boolean.FALSE.equals(e.getValue()));
        if (inclusion) {
            Document project = new Document(plain);
            project.putAll(scores);
            stages.add(new Document("$project", project));
        } else {
            if (!scores.isEmpty()) {
                stages.add(new Document("$addFields", scores));
            }
            if (!plain.isEmpty()) {
                stages.add(new Document("$project", plain));
            }
        }
        return stages;
    }

    /** {@code {$meta: "textScore"}} in later stages: the hidden score field. */
    private static Object replaceMeta(Object node) {
        if (node instanceof Document doc) {
            if (doc.size() == 1 && doc.get("$sort") instanceof Document sort) {
                return new Document("$sort", scoreSort(sort));
            }
            if (TEXT_SCORE.equals(doc)) {
                return "$" + SCORE;
            }
            Document out = new Document();
            doc.forEach((k, v) -> out.put(k, replaceMeta(v)));
            return out;
        }
        if (node instanceof List<?> list) {
            return list.stream().map(TextSearch::replaceMeta).toList();
        }
        return node;
    }
}
