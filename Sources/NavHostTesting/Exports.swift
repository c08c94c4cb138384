// Feature tests control time with swift-clocks' `TestClock`; importing the kit brings it along.
@_exported public import Clocks
