import NavHostInspector
import NavHostJSON
import Testing

/// The intent form's arguments.
@Suite("The intent form's arguments")
struct InspectorIntentArgumentsTests {
    @Test("key=value pairs read as navctl reads them: JSON when it parses, a string otherwise")
    func pairs() throws {
        #expect(try InspectorIntentArguments.parse("text=engine") == ["text": "engine"])
        #expect(
            try InspectorIntentArguments.parse(" count=3 on=true  note=null ") == ["count": 3, "on": true, "note": nil]
        )
        #expect(
            try InspectorIntentArguments.parse("name=Ada Lovelace\nrole=\"x\"") == [
                "name": "Ada Lovelace", "role": "x",
            ]
        )
        #expect(try InspectorIntentArguments.parse("") == [:])
        #expect(try InspectorIntentArguments.parse("title=Lemon tart") == ["title": "Lemon tart"])
        #expect(try InspectorIntentArguments.parse("empty=") == ["empty": ""])
    }

    @Test(
        "A word that begins no pair continues the value before it, with its spaces; a line break makes each line a pair"
    )
    func valuesWithSpaces() throws {
        #expect(
            try InspectorIntentArguments.parse(#"name=Ada  Lovelace count=3 note=a "b=c" d="#) == [
                "name": "Ada  Lovelace", "count": 3, "note": #"a "b=c""#, "d": "",
            ]
        )
        #expect(try InspectorIntentArguments.parse(#"tags=[1, 2] on=true"#) == ["tags": [1, 2], "on": true])
        #expect(try InspectorIntentArguments.parse("query=a=b c=d\nn=1") == ["query": "a=b c=d", "n": 1])
        // A line break at the end is Enter before Send: the words still make two pairs; a quoted value makes one.
        #expect(try InspectorIntentArguments.parse("a=1 b=2\n") == ["a": 1, "b": 2])
        #expect(try InspectorIntentArguments.parse("text=\"a=b c=d\"\n") == ["text": "a=b c=d"])
    }

    @Test("A JSON string, array or object keeps its words, even one that looks like a pair, until it closes")
    func openJSONValues() throws {
        #expect(try InspectorIntentArguments.parse(#"text="a b=1" n=2"#) == ["text": "a b=1", "n": 2])
        #expect(try InspectorIntentArguments.parse(#"text="say \"x=1 y\"" n=2"#) == ["text": #"say "x=1 y""#, "n": 2])
        #expect(
            try InspectorIntentArguments.parse(#"tags=["x", "y=z"] where={"k": "a b=c"} on=true"#) == [
                "tags": ["x", "y=z"], "where": ["k": "a b=c"], "on": true,
            ]
        )
        #expect(try InspectorIntentArguments.parse(#"text="open b=1"#) == ["text": #""open b=1"#])
    }

    @Test("One JSON object is taken as it is")
    func json() throws {
        #expect(try InspectorIntentArguments.parse(#"{"text":"engine","n":2}"#) == ["text": "engine", "n": 2])
    }

    @Test(
        "A word without a key, a key given twice, or broken JSON is refused",
        arguments: ["engine", "=x", "a=1 a=2", "{nope"]
    )
    func invalid(text: String) {
        #expect(throws: InspectorIntentArguments.Invalid.self) { try InspectorIntentArguments.parse(text) }
    }
}
