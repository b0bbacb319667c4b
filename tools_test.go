package main

import _ "github.com/charmbracelet/x/exp/teatest/v2"
