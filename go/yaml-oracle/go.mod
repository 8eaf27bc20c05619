module kro-ts/yaml-oracle

go 1.24.0

require sigs.k8s.io/yaml v1.5.0

require go.yaml.in/yaml/v2 v2.4.2 // indirect
