package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Stages mongod has under two names: {@code $set} is {@code $addFields}, {@code $replaceWith: x} is {@code $replaceRoot: {newRoot: x}}. */
final class Pipelines {
    private Pipelines() {
    }

    /** {@code stages} with {@code $set} and {@code $replaceWith} in the backend's spelling, nested pipelines included. */
    static List<Object> rewrite(List<?> stages) {
        List<Object> out = new ArrayList<>();
        for (Object stage : stages) {
            if (!(stage instanceof Document doc) || doc.size() != 1) {
                out.add(stage);
                continue;
            }
            Map.Entry<String, Object> e = doc.entrySet().iterator().next();
            Object spec = e.getValue();
            switch (e.getKey()) {
                case "$set" -> out.add(new Document("$addFields", spec));
                case "$replaceWith" -> out.add(new Document("$replaceRoot", new Document("newRoot", spec)));
                case "$facet" -> {
                    Document facets = new Document();
                    if (spec instanceof Document d) {
                        d.forEach((k, v) -> facets.put(k, v instanceof List<?> p ? rewrite(p) : v));
                    }
                    out.add(new Document("$facet", facets));
                }
                case "$lookup" -> {
                    Document lookup = spec instanceof Document d ? new Document(d) : new Document();
                    if (lookup.get("pipeline") instanceof List<?> p) {
                        lookup.put("pipeline", rewrite(p));
                    }
                    out.add(new Document("$lookup", lookup));
                }
                default -> out.add(stage);
            }
        }
        return out;
    }
}
