/// How long a focus request wants the output: the runtime's own `FocusRequestType`.
public typealias FocusType = FocusRequestType
