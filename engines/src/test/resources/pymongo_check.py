"""pymongo_check.py MODE: Python's standard driver (Debian python3-pymongo) against the URL in
ROBOCO_TEST_MONGO_URL, used exactly as handed out. Prints one JSON object; exit 0 unless the
script itself broke. Modes:
  use        insert, query and index in the URL's database
  read DB    try to read collection "notes" of database DB (another agent's)
  anonymous  no credentials (the URL's host and port only): ping, then try to read
"""
import json
import os
import sys

import pymongo
from pymongo.errors import OperationFailure, PyMongoError


def client(url):
    return pymongo.MongoClient(url, serverSelectionTimeoutMS=5000, connectTimeoutMS=5000)


def failure(e):
    return {"ok": False, "code": getattr(e, "code", None), "error": type(e).__name__, "message": str(e)[:300]}


def main():
    url = os.environ["ROBOCO_TEST_MONGO_URL"]
    mode = sys.argv[1]
    out = {"driver": "pymongo " + pymongo.version}
    if mode == "use":
        c = client(url)
        db = c.get_default_database()
        try:
            db.notes.insert_many([{"n": 1, "body": "from python"}, {"n": 2}])
            found = db.notes.find_one({"n": 1}, {"_id": 0})
            index = db.notes.create_index([("n", pymongo.ASCENDING)])
            out.update(ok=True, db=db.name, found=found, index=index,
                       indexes=sorted(db.notes.index_information().keys()), count=db.notes.count_documents({}))
        except PyMongoError as e:
            out.update(failure(e))
    elif mode == "read":
        c = client(url)
        try:
            out.update(ok=True, found=c[sys.argv[2]].notes.find_one({}, {"_id": 0}))
        except PyMongoError as e:
            out.update(failure(e))
    elif mode == "anonymous":
        host_port = url.split("@", 1)[1].split("/", 1)[0]
        c = client("mongodb://" + host_port + "/")
        out["ping"] = c.admin.command("ping").get("ok")
        try:
            c[sys.argv[2]].notes.find_one()
            out["read"] = {"ok": True}
        except OperationFailure as e:
            out["read"] = failure(e)
        try:
            c.list_database_names()
            out["listDatabases"] = {"ok": True}
        except OperationFailure as e:
            out["listDatabases"] = failure(e)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
