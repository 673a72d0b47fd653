"""pymongo_features.py: every row of the Mongo fidelity table (MongoFidelity.java) with Python's standard driver
(Debian python3-pymongo), against ROBOCO_TEST_MONGO_URL (the agent's handed-out URL) and ROBOCO_TEST_MONGO_ADMIN_URL
(a user that may run collMod). Prints one JSON object: row id -> {"outcome": "works" | "error" | "failed", "detail"}.
"works": the row's assertions held; "error": the server refused (detail: its message); "failed": an assertion broke.
"""
import datetime
import json
import os
import traceback

import pymongo
from pymongo import ReturnDocument
from pymongo.errors import OperationFailure, PyMongoError, WriteError

SCHEMA = {"$jsonSchema": {"bsonType": "object", "required": ["name"],
                          "properties": {"name": {"bsonType": "string", "minLength": 1},
                                         "age": {"bsonType": "int", "minimum": 0}}}}


def client(url):
    return pymongo.MongoClient(url, serverSelectionTimeoutMS=10000, connectTimeoutMS=10000)


AGENT = client(os.environ["ROBOCO_TEST_MONGO_URL"])
ADMIN = client(os.environ.get("ROBOCO_TEST_MONGO_ADMIN_URL", os.environ["ROBOCO_TEST_MONGO_URL"]))
DB = AGENT.get_default_database() if AGENT.get_default_database() is not None else AGENT.fidelity
CHECKS = {}


def check(row):
    def register(f):
        CHECKS[row] = f
        return f
    return register


def code_of(fn):
    try:
        fn()
    except OperationFailure as e:
        return e.code
    return None


@check("crud")
def crud(db, c):
    c.insert_many([{"_id": 1, "n": 1}, {"_id": 2, "n": 2}])
    c.update_one({"_id": 3}, {"$set": {"n": 3}}, upsert=True)
    after = c.find_one_and_update({"_id": 1}, {"$inc": {"n": 10}}, return_document=ReturnDocument.AFTER)
    assert after["n"] == 11, after
    c.bulk_write([pymongo.InsertOne({"_id": 4}), pymongo.UpdateOne({"_id": 2}, {"$set": {"n": 0}})])
    c.delete_one({"_id": 4})
    assert c.count_documents({}) == 3
    assert c.find_one({"_id": 2})["n"] == 0


@check("unique-index")
def unique_index(db, c):
    c.create_index("email", unique=True)
    c.insert_one({"email": "a@x"})
    assert code_of(lambda: c.insert_one({"email": "a@x"})) == 11000


@check("aggregation")
def aggregation(db, c):
    users = db[c.name + "_users"]
    users.insert_one({"_id": "u1", "name": "ann"})
    c.insert_many([{"user": "u1", "items": [1, 2]}, {"user": "u1", "items": [3]}])
    out = list(c.aggregate([{"$unwind": "$items"}, {"$group": {"_id": "$user", "total": {"$sum": "$items"}}},
                            {"$lookup": {"from": users.name, "localField": "_id", "foreignField": "_id", "as": "user"}},
                            {"$set": {"k": 1}},
                            {"$replaceWith": {"total": "$total", "who": {"$arrayElemAt": ["$user.name", 0]}}},
                            {"$facet": {"all": [{"$match": {}}]}}]))
    assert out[0]["all"] == [{"total": 6, "who": "ann"}], out


@check("list-collections")
def list_collections(db, c):
    db.create_collection(c.name)
    db.create_collection(c.name + "_other")
    assert db.list_collection_names(filter={"name": c.name}) == [c.name]


@check("ttl-index")
def ttl_index(db, c):
    c.create_index("at", expireAfterSeconds=3600)
    assert any("expireAfterSeconds" in i for i in c.list_indexes())


@check("jsonschema-validator")
def jsonschema_validator(db, c):
    db.create_collection(c.name, validator=SCHEMA)
    c.insert_one({"name": "ann", "age": 3})
    assert code_of(lambda: c.insert_one({"age": 4})) == 121
    assert code_of(lambda: c.update_one({"name": "ann"}, {"$set": {"age": -1}})) == 121
    assert code_of(lambda: c.find_one_and_update({"name": "ann"}, {"$set": {"name": ""}})) == 121
    docs = list(c.find({}, {"_id": 0}))
    assert docs == [{"name": "ann", "age": 3}], docs


@check("validation-level-action")
def validation_level_action(db, c):
    c.insert_one({"age": -5})
    ADMIN[db.name].command("collMod", c.name, validator=SCHEMA, validationLevel="moderate")
    c.update_one({"age": -5}, {"$set": {"age": -6}})
    assert code_of(lambda: c.insert_one({"age": 1})) == 121
    db.create_collection(c.name + "_warn", validator=SCHEMA, validationAction="warn")
    db[c.name + "_warn"].insert_one({"age": 1})
    assert db[c.name + "_warn"].count_documents({}) == 1


@check("collmod-validator")
def collmod_validator(db, c):
    c.insert_one({"name": "ok"})
    assert code_of(lambda: db.command("collMod", c.name, validator=SCHEMA)) == 13
    ADMIN[db.name].command("collMod", c.name, validator=SCHEMA)
    assert code_of(lambda: c.insert_one({"x": 1})) == 121


@check("bypass-validation")
def bypass_validation(db, c):
    db.create_collection(c.name, validator=SCHEMA)
    assert code_of(lambda: c.insert_one({"x": 1}, bypass_document_validation=True)) == 13
    ADMIN[db.name][c.name].insert_one({"x": 1}, bypass_document_validation=True)
    assert c.count_documents({}) == 1


@check("text-search")
def text_search(db, c):
    c.create_index([("title", pymongo.TEXT), ("body", pymongo.TEXT)], weights={"title": 10})
    c.insert_many([{"title": "Running shoes", "body": "Shoes for RUNNERS"},
                   {"title": "Cooking", "body": "pasta, and a run to the shop"},
                   {"title": "Café culture", "body": "nothing here"}])
    found = list(c.find({"$text": {"$search": "RUN"}}, {"score": {"$meta": "textScore"}, "_id": 0})
                 .sort([("score", {"$meta": "textScore"})]))
    assert [d["title"] for d in found] == ["Running shoes", "Cooking"], found
    assert found[0]["score"] > found[1]["score"]
    assert len(list(c.find({"$text": {"$search": "cafe"}}))) == 1


@check("text-phrases")
def text_phrases(db, c):
    c.create_index([("body", pymongo.TEXT)])
    c.insert_many([{"body": "red apple pie"}, {"body": "apple red wine"}, {"body": "green apple"}])
    assert len(list(c.find({"$text": {"$search": "\"red apple\""}}))) == 1
    assert len(list(c.find({"$text": {"$search": "apple -red"}}))) == 1


@check("text-aggregate")
def text_aggregate(db, c):
    c.create_index([("body", pymongo.TEXT)])
    c.insert_many([{"body": "coffee and tea"}, {"body": "coffee coffee"}, {"body": "water"}])
    out = list(c.aggregate([{"$match": {"$text": {"$search": "coffee"}}},
                            {"$project": {"_id": 0, "body": 1, "s": {"$meta": "textScore"}}},
                            {"$sort": {"s": -1}}]))
    assert [d["body"] for d in out] == ["coffee coffee", "coffee and tea"], out


@check("transactions-commit")
def transactions_commit(db, c):
    c.insert_many([{"_id": 1, "b": 100}, {"_id": 2, "b": 0}])
    with AGENT.start_session() as s:
        with s.start_transaction():
            c.update_one({"_id": 1}, {"$inc": {"b": -10}}, session=s)
            c.update_one({"_id": 2}, {"$inc": {"b": 10}}, session=s)
            assert c.find_one({"_id": 1}, session=s)["b"] == 90
            assert c.find_one({"_id": 1})["b"] == 100
    assert [d["b"] for d in c.find().sort("_id")] == [90, 10]


@check("transactions-abort")
def transactions_abort(db, c):
    c.insert_one({"_id": 1})
    with AGENT.start_session() as s:
        s.start_transaction()
        c.insert_one({"_id": 2}, session=s)
        c.delete_one({"_id": 1}, session=s)
        s.abort_transaction()
    assert [d["_id"] for d in c.find()] == [1]


@check("transactions-snapshot")
def transactions_snapshot(db, c):
    c.insert_one({"_id": 1})
    with AGENT.start_session() as s:
        with s.start_transaction():
            assert c.count_documents({}, session=s) == 1
            c.insert_one({"_id": 2})
            assert c.find_one({"_id": 2}, session=s) is None


@check("transactions-conflict")
def transactions_conflict(db, c):
    c.insert_one({"_id": "x", "n": 0})
    state = {"attempts": 0, "other": False}

    def work(s):
        state["attempts"] += 1
        c.update_one({"_id": "x"}, {"$inc": {"n": 1}}, session=s)
        if state["attempts"] == 1:
            with AGENT.start_session() as other:
                other.start_transaction()
                try:
                    c.update_one({"_id": "x"}, {"$inc": {"n": 1000}}, session=other)
                    other.commit_transaction()
                    state["other"] = True
                except PyMongoError as e:
                    assert e.has_error_label("TransientTransactionError"), e

    with AGENT.start_session() as s:
        s.with_transaction(work)
    n = c.find_one()["n"]
    if state["other"]:
        assert state["attempts"] == 2 and n == 1001, (state, n)
    else:
        assert n == 1, n


@check("geo")
def geo(db, c):
    c.create_index([("loc", pymongo.GEOSPHERE)])
    list(c.find({"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [1, 2]}}}}))


@check("change-streams")
def change_streams(db, c):
    with c.watch() as stream:
        stream.try_next()


@check("capped")
def capped(db, c):
    db.create_collection(c.name, capped=True, size=4096)


@check("views")
def views(db, c):
    db.command("create", c.name, viewOn=c.name + "_source", pipeline=[{"$match": {}}])
    list(c.find())


@check("timeseries")
def timeseries(db, c):
    db.command("create", c.name, timeseries={"timeField": "t"})


@check("collation")
def collation(db, c):
    c.insert_one({"s": "A"})
    assert c.find_one({"s": "a"}, collation={"locale": "en", "strength": 2}) is not None


@check("window-functions")
def window_functions(db, c):
    list(c.aggregate([{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"n": {"$documentNumber": {}}}}}]))


@check("union-with")
def union_with(db, c):
    list(c.aggregate([{"$unionWith": {"coll": c.name + "_other", "pipeline": []}}]))


@check("update-pipeline")
def update_pipeline(db, c):
    c.insert_one({"a": 1})
    c.update_one({}, [{"$set": {"b": "$a"}}])
    assert c.find_one()["b"] == 1


@check("where")
def where(db, c):
    c.insert_one({"a": 1})
    assert c.find_one({"$where": "this.a == 1"}) is not None


@check("explain")
def explain(db, c):
    db.command("explain", {"find": c.name})


@check("map-reduce")
def map_reduce(db, c):
    c.insert_one({"a": 1})
    db.command("mapReduce", c.name, map="function() { emit(this.a, 1); }",
               reduce="function(k, v) { return Array.sum(v); }", out={"inline": 1})


def main():
    out = {"driver": "pymongo " + pymongo.version}
    for row, fn in CHECKS.items():
        collection = DB["f_" + row.replace("-", "_") + "_py"]
        try:
            fn(DB, collection)
            out[row] = {"outcome": "works"}
        except PyMongoError as e:
            out[row] = {"outcome": "error", "detail": str(e)[:400]}
        except Exception as e:  # an assertion or a bug in the check
            out[row] = {"outcome": "failed", "detail": (repr(e) + " " + traceback.format_exc(limit=2))[:600]}
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
