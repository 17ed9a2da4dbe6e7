"""Tokenizers, one per convention, named in every signature. (Interface; implementations land with the lexical suite.)"""
