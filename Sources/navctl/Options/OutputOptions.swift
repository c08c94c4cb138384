import ArgumentParser

/// How to print what the daemon answers.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the reply as one JSON object per line, as the Varlink interface declares it.")
    var json = false
}
